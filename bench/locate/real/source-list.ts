import fs from 'fs';
import path from 'path';
import { execFileSync } from 'child_process';
import type { DesktopSource } from './desktop';
import type { Part } from './types';

/**
 * The pinned list of real UIs (sources.json) and fetching them: each web
 * source is an npm package, packed at its exact version into bench/.cache and
 * unpacked there, so nothing is downloaded while pages are captured.
 */
export interface WebPage {
  path: string;
  /** A selector the page's own script answers (a theme switch), clicked before capture. */
  click?: string;
  scroll?: number;
  /** Tells apart two screens of the same file ('dark', 'controls'). */
  label?: string;
}

export interface WebSource {
  name: string;
  version: string;
  license: string;
  part: Part;
  styles: string[];
  /**
   * The package's own stylesheets and scripts to add to each page, for test
   * pages that load them through a build step the package does not ship.
   */
  assets?: { stylesheets?: string[]; scripts?: string[] };
  pages: WebPage[];
}

export interface Sources {
  resolutions: [number, number][];
  web: WebSource[];
  desktop: DesktopSource[];
}

export const REAL_DIR = __dirname;
export const CACHE_DIR = path.resolve(__dirname, '..', '..', '.cache');

export function loadSources(file = path.join(REAL_DIR, 'sources.json')): Sources {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Sources;
}

/** A file-system-safe name for a source: '@scope/name' → 'scope-name'. */
export function sourceSlug(name: string): string {
  return name.replace(/^@/, '').replace(/[^\w.-]+/g, '-');
}

/** The unpacked package folder of a source, packing it first if the cache lacks it. */
export function ensureSource(source: WebSource, cacheDir = CACHE_DIR): string {
  const dir = path.join(cacheDir, 'packages', `${sourceSlug(source.name)}@${source.version}`);
  const root = path.join(dir, 'package');
  if (fs.existsSync(path.join(root, 'package.json'))) return root;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const out = execFileSync('npm', ['pack', `${source.name}@${source.version}`, '--silent', '--pack-destination', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const tarball = path.join(dir, out.trim().split('\n').pop()!);
  execFileSync('tar', ['xzf', tarball, '-C', dir]);
  fs.rmSync(tarball);
  if (!fs.existsSync(path.join(root, 'package.json'))) throw new Error(`${source.name}@${source.version}: the packed tarball has no package/package.json`);
  return root;
}
