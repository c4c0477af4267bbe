import fs from 'fs';
import path from 'path';
import { CallSite } from '../util/call-site';
import { Redactor } from './redact';

/**
 * Screenshot files: `.glance/screenshots/<test>/<seq>-<action>-<phase>-L<line>-<description>.png`,
 * with secrets masked and unsafe characters removed from every part of the name.
 */
export class ScreenshotFolder {
  private seq = 0;
  /** Names the folder instead of the calling file (a Cucumber scenario, say). */
  testName: string | null = null;
  /** The line of the test step now running, instead of the caller's (a Cucumber step's line in its feature). */
  testLine: number | null = null;

  constructor(private readonly stateDir: string, private readonly redactor: Redactor) {}

  /** `<test>/<seq>-…png`, relative to the screenshots folder. `site` is the caller's file and line, taken before any await (async frames lose it). */
  nameFor(action: string, phase: string, description: string, site: CallSite | null): string {
    const test = slug(this.testName ?? (site ? path.basename(site.file).replace(/\.[^.]+$/, '') : 'session'), 60);
    const parts = [String(++this.seq).padStart(4, '0'), slug(action, 30), slug(phase, 10)];
    const line = this.testLine ?? site?.line;
    if (line) parts.push(`L${line}`);
    const label = slug(this.redactor.text(description), 40);
    if (label) parts.push(label);
    return `${test}/${parts.join('-')}.png`;
  }

  /** The full path of a new screenshot file, its folder made. */
  pathFor(action: string, phase: string, description: string, site: CallSite | null): string {
    const file = path.join(this.stateDir, 'screenshots', this.nameFor(action, phase, description, site));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    return file;
  }
}

function slug(text: string, max: number): string {
  return text.replace(/\*{4}/g, 'secret').replace(/[^\w.]+/g, '_').replace(/^_+|_+$/g, '').slice(0, max);
}
