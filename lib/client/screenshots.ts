import fs from 'fs';
import path from 'path';
import { CallSite } from '../util/call-site';
import { Redactor } from './redact';

/** Test folders this process has cleared (each once, when its test starts writing), with the number of the last file in each. */
const folders = new Map<string, number>();

/**
 * Screenshot files: `.glance/screenshots/<test>/<seq>-<action>-<phase>-L<line>-<description>.png`,
 * with secrets masked and unsafe characters removed from every part of the
 * name. A test's folder holds its latest run only: it is cleared when the run
 * starts (the first name asked for in this process, or setTestName).
 */
export class ScreenshotFolder {
  /** Names the folder instead of the calling file (a Cucumber scenario, say). */
  private name: string | null = null;
  /** The line of the test step now running, instead of the caller's (a Cucumber step's line in its feature). */
  testLine: number | null = null;

  constructor(private readonly stateDir: string, private readonly redactor: Redactor) {}

  get root(): string {
    return path.join(this.stateDir, 'screenshots');
  }

  get testName(): string | null {
    return this.name;
  }

  /** A test runner names the test; its folder is cleared now, as its run starts. */
  set testName(name: string | null) {
    this.name = name;
    if (name) this.begin(this.folder(null));
  }

  /** The test's folder name: the name a runner set, else the calling script's name. */
  folder(site: CallSite | null): string {
    return slug(this.redactor.text(this.name ?? (site ? path.basename(site.file).replace(/\.[^.]+$/, '') : 'session')), 60) || 'session';
  }

  /** `<test>/<seq>-…png`, relative to the screenshots folder. `site` is the caller's file and line, taken before any await (async frames lose it). */
  nameFor(action: string, phase: string, description: string, site: CallSite | null, extension = 'png'): string {
    const test = this.folder(site);
    const seq = this.begin(test) + 1;
    folders.set(path.join(this.root, test), seq);
    const parts = [String(seq).padStart(4, '0'), slug(action, 30), slug(phase, 10)];
    const line = this.testLine ?? site?.line;
    if (line) parts.push(`L${line}`);
    const label = slug(this.redactor.text(description), 30);
    if (label) parts.push(label);
    return `${test}/${parts.join('-')}.${extension}`;
  }

  /** The full path of a new screenshot file, its folder made. */
  pathFor(action: string, phase: string, description: string, site: CallSite | null, extension = 'png'): string {
    const file = path.join(this.root, this.nameFor(action, phase, description, site, extension));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return file;
  }

  /**
   * Clears a test's folder the first time this process writes to it (what is
   * there is from an earlier run); returns the number of its last file.
   */
  private begin(test: string): number {
    const dir = path.join(this.root, test);
    const last = folders.get(dir);
    if (last !== undefined) return last;
    folders.set(dir, 0);
    fs.rmSync(dir, { recursive: true, force: true });
    return 0;
  }
}

/** A file-name-safe form of `text`: secrets (already `****`) read 'secret', anything else unsafe becomes `_`. */
export function slug(text: string, max: number): string {
  return text.replace(/\*{4}/g, 'secret').replace(/[^\w.]+/g, '_').replace(/^_+|_+$/g, '').slice(0, max).replace(/_+$/, '');
}
