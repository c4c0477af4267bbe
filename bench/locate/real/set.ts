import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import sharp from 'sharp';
import { captureWebSource, CapturedScreen } from './capture';
import { captureDesktopSources } from './desktop';
import { generateCases, seenOnly } from './generate';
import { CACHE_DIR, ensureSource, loadSources, REAL_DIR, Sources } from './source-list';
import type { Box, Part, RealCase, ScreenInfo } from './types';

/**
 * The built set: screens as PNG and cases as JSON Lines under
 * bench/.cache/locate-real, made once and reused while the source list and
 * the generator are unchanged. The committed manifest (manifest.json beside
 * this file) records each screen's page and PNG hashes and case count, so a
 * rebuild that comes out different (another Chromium, other fonts) is seen.
 */
export interface RealSet {
  screens: ScreenInfo[];
  cases: RealCase[];
  signature: string;
}

export const SET_DIR = path.join(CACHE_DIR, 'locate-real');
export const MANIFEST = path.join(REAL_DIR, 'manifest.json');
const GENERATOR_FILES = ['sources.json', 'source-list.ts', 'capture.ts', 'dom-snapshot.ts', 'desktop.ts', 'generate.ts', 'phrase.ts', 'negatives.ts', 'set.ts'];

/** A hash of the source list and the generator's code: the set is rebuilt when it changes. */
export function generatorSignature(): string {
  const hash = crypto.createHash('sha256');
  for (const file of GENERATOR_FILES) hash.update(fs.readFileSync(path.join(REAL_DIR, file)));
  return hash.digest('hex').slice(0, 16);
}

const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** How far from its background a pixel's luminance must be to be ink: about 25 grey levels. */
const INK = 0.1;
/** The share of a box's pixels that must be ink for it to show something (a short word in a wide heading's box is 1%). */
const INKED_SHARE = 0.003;

/** Luminance on the screenshot: the background a box's text sits on, and whether the box shows any ink on it. */
async function pixelsOf(png: string): Promise<{ background: (box: Box) => number; inked: (box: Box) => boolean }> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const lum = (x: number, y: number) => {
    const i = (Math.min(info.height - 1, Math.max(0, y)) * info.width + Math.min(info.width - 1, Math.max(0, x))) * 3;
    return (0.2126 * data[i] + 0.7152 * data[i + 1] + 0.0722 * data[i + 2]) / 255;
  };
  /** The median luminance along the box's edge. */
  const background = (box: Box) => {
    const values: number[] = [];
    for (let x = box.x; x < box.x + box.width; x += 2) values.push(lum(x, box.y), lum(x, box.y + box.height - 1));
    for (let y = box.y; y < box.y + box.height; y += 2) values.push(lum(box.x, y), lum(box.x + box.width - 1, y));
    values.sort((a, b) => a - b);
    return values[Math.floor(values.length / 2)] ?? 1;
  };
  const inked = (box: Box) => {
    const under = background(box);
    let ink = 0;
    for (let y = box.y; y < box.y + box.height; y++) for (let x = box.x; x < box.x + box.width; x++) if (Math.abs(lum(x, y) - under) > INK) ink++;
    return ink >= Math.max(4, box.width * box.height * INKED_SHARE);
  };
  return { background, inked };
}

async function screensOf(source: { name: string; part: Part }, captured: CapturedScreen[], dir: string): Promise<{ screens: ScreenInfo[]; cases: RealCase[] }> {
  const screens: ScreenInfo[] = [];
  const cases: RealCase[] = [];
  for (const shot of captured) {
    const info: ScreenInfo = { id: shot.id, source: source.name, page: shot.page, width: shot.width, height: shot.height, part: source.part, pageSha: shot.pageSha, pngSha: sha256(shot.png), png: path.relative(dir, shot.png) };
    screens.push(info);
    const pixels = await pixelsOf(shot.png);
    cases.push(...generateCases(info, seenOnly(shot.snapshot, pixels.inked, pixels.background), pixels.background));
  }
  return { screens, cases };
}

/** Fetches every web source and captures its pages, captures every desktop program, and generates the cases; writes the set into the cache. */
export async function buildSet(options: { sources?: Sources; dir?: string; log?: (line: string) => void } = {}): Promise<RealSet> {
  const sources = options.sources ?? loadSources();
  const dir = options.dir ?? SET_DIR;
  const log = options.log ?? (() => undefined);
  // Taken before building: a change to the generator while it runs must not stamp this set as the changed one's.
  const signature = generatorSignature();
  fs.mkdirSync(dir, { recursive: true });
  const screens: ScreenInfo[] = [];
  const cases: RealCase[] = [];
  const add = async (source: { name: string; part: Part }, captured: CapturedScreen[]) => {
    const built = await screensOf(source, captured, dir);
    screens.push(...built.screens);
    cases.push(...built.cases);
    return built;
  };
  for (const source of sources.web) {
    const started = Date.now();
    const root = ensureSource(source);
    const built = await add(source, await captureWebSource(source, root, sources.resolutions, path.join(dir, 'screens')));
    log(`  ${source.name}@${source.version}: ${built.screens.length} screens, ${built.cases.length} cases (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  if (sources.desktop.length) {
    log(`  desktop programs, in a sandbox at each resolution:`);
    for (const { source, screen } of await captureDesktopSources(sources.desktop, sources.resolutions, path.join(dir, 'screens'), log)) await add({ name: screen.source, part: source.part }, [screen]);
  }
  const set = { screens, cases, signature };
  fs.writeFileSync(path.join(dir, 'screens.json'), JSON.stringify({ signature: set.signature, screens }, null, 1));
  fs.writeFileSync(path.join(dir, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n') + '\n');
  return set;
}

/** The set in the cache when it was built by this generator from this source list; null otherwise. */
export function readSet(dir = SET_DIR): RealSet | null {
  try {
    const { signature, screens } = JSON.parse(fs.readFileSync(path.join(dir, 'screens.json'), 'utf8')) as { signature: string; screens: ScreenInfo[] };
    if (signature !== generatorSignature()) return null;
    if (!screens.every((s) => fs.existsSync(path.join(dir, s.png)))) return null;
    const cases = fs.readFileSync(path.join(dir, 'cases.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as RealCase);
    return { screens, cases, signature };
  } catch {
    return null;
  }
}

export async function loadSet(options: { rebuild?: boolean; log?: (line: string) => void } = {}): Promise<RealSet> {
  const cached = options.rebuild ? null : readSet();
  if (cached) return cached;
  options.log?.('building the real-UI set (npm pack, capture in Chromium, generate cases) into bench/.cache/locate-real');
  return buildSet({ log: options.log });
}

export function screenPath(screen: ScreenInfo, dir = SET_DIR): string {
  return path.resolve(dir, screen.png);
}

export interface Manifest {
  signature: string;
  totals: { sources: number; screens: number; cases: number; byCategory: Record<string, number>; byPart: Record<string, number> };
  screens: { id: string; part: string; pageSha: string; pngSha: string; cases: number }[];
}

export function manifestOf(set: RealSet): Manifest {
  const count = (key: (c: RealCase) => string) => set.cases.reduce<Record<string, number>>((acc, c) => ({ ...acc, [key(c)]: (acc[key(c)] ?? 0) + 1 }), {});
  return {
    signature: set.signature,
    totals: { sources: new Set(set.screens.map((s) => s.source)).size, screens: set.screens.length, cases: set.cases.length, byCategory: count((c) => c.category), byPart: count((c) => c.part) },
    screens: set.screens.map((s) => ({ id: s.id, part: s.part, pageSha: s.pageSha, pngSha: s.pngSha, cases: set.cases.filter((c) => c.screen === s.id).length })),
  };
}

/** Screens whose page, picture or case count differ from the committed manifest. */
export function driftFromManifest(set: RealSet, file = MANIFEST): string[] {
  if (!fs.existsSync(file)) return ['no manifest committed'];
  const committed = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  const now = manifestOf(set);
  const drift: string[] = [];
  const byId = new Map(committed.screens.map((s) => [s.id, s]));
  for (const s of now.screens) {
    const was = byId.get(s.id);
    if (!was) drift.push(`${s.id}: new`);
    else if (was.pageSha !== s.pageSha) drift.push(`${s.id}: page changed`);
    else if (was.pngSha !== s.pngSha || was.cases !== s.cases) drift.push(`${s.id}: rendered differently (${was.cases} → ${s.cases} cases)`);
  }
  for (const id of byId.keys()) if (!now.screens.some((s) => s.id === id)) drift.push(`${id}: gone`);
  return drift;
}
