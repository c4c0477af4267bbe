import fs from 'fs';
import path from 'path';
import zlib from 'zlib';
import { createHash } from 'crypto';
import { pathToFileURL } from 'url';
import type { Screen } from '../types/screen';
import type { Candidate, CacheInfo } from '../types/locate';
import type { Box } from '../types/screen';
import { openDb } from '../store/db';
import { clampBox, cropPixels, pixelsToPng } from '../image/crop';
import { CacheRow, CacheStore, MAX_VARIANTS, NewAssertion, NewEntry, ScreenRow } from './store';
import { Grey, searchNear, searchScreen } from './template';
import { differingPixels, screenDifference } from '../image/screen-diff';

/**
 * The element cache: a find on a screen seen before (within the thresholds)
 * reuses the box found then, without running the engine. Entries are written
 * only for tests that pass (see commit), and an entry whose element is
 * nowhere on a matching screen is evicted once the engine finds the element.
 */
export interface Partition {
  key: string;
  description: string;
  os: string;
  resolution: string;
}

export interface CacheThresholds {
  /** Share of pixels that may differ between the cached screen and this one (the call's cacheThreshold). */
  screen: number;
  /** Minimum template-match correlation of the element crop. */
  element: number;
}

export interface CacheLookup {
  candidate: Candidate | null;
  info: CacheInfo;
  similarity: number | null;
  /** A hit whose element shows the very pixels cached, where it stood. */
  samePixels?: boolean;
  /** On a miss whose element was nowhere on the screen: removes the entry, once the engine proves it wrong by finding the element. */
  evictStale?: () => void;
  /** Set with evictStale (the same screen, but for where the element stood): the engine that found the element the cache holds. */
  foundBy?: string;
  /** Set when the element was found absent on this same screen before: why it is not there. */
  absent?: string;
}

const NEAR_RADIUS = 6;
/** Screens this close (share of pixels) are the same screen, a caret or a clock apart. */
const SAME_SCREEN = 0.01;
const DECODED_SCREENS = 8;
export const DEFAULT_MAX_ENTRIES = 5000;

/**
 * A located element waiting for its test to pass. Its screen is deflated off
 * the hot path (zlib runs on the thread pool) and held only in that form, so
 * a long session's pending entries cost a fraction of their raw screens.
 */
interface Pending {
  partition: Partition;
  screen: Promise<ScreenRow>;
  format: Screen['format'];
  items: { candidate: Candidate; box: Box; crop: Buffer }[];
}

/** A passed assertion waiting for its test to pass, with its screen deflated like an element's. */
interface PendingAssertion {
  partition: Partition;
  screen: Promise<ScreenRow>;
  verdict: { reason: string; engine: string };
}

/** A cached assertion that still holds: the screen is within the threshold of the one it was judged on. */
export interface AssertionLookup {
  verdict: { reason: string; engine: string } | null;
  info: CacheInfo;
}

/** At most this many entries wait for commit; past it the oldest is dropped (it is simply not cached). */
export const MAX_PENDING = 256;

export interface GroupLookup {
  candidates: Candidate[] | null;
  info: CacheInfo;
  /** The lowest crop similarity of the group. */
  similarity: number | null;
  /** Every element shows the very pixels cached, where it stood. */
  samePixels?: boolean;
  evictStale?: () => void;
  foundBy?: string;
}

export class ElementCache {
  private store: CacheStore | null = null;
  private readonly decoded = new Map<string, Buffer>();
  private pending: Pending[] = [];
  private pendingAssertions: PendingAssertion[] = [];
  /** Deflations under way, by the screen buffer they read: one per screen, however many finds used it. */
  private readonly deflating = new WeakMap<Buffer, Promise<ScreenRow>>();

  constructor(private readonly stateDir: string, private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  private db(): CacheStore {
    if (!this.store) this.store = new CacheStore(openDb(this.stateDir));
    return this.store;
  }

  private cropDir(): string {
    return path.join(this.stateDir, 'cache');
  }

  /**
   * Whether a lookup could answer for the partition at all: an element
   * cached, or with `absences`, the element noted absent. A find of one that
   * holds neither asks the engines from its first look.
   */
  holds(partition: Partition, absences: boolean): boolean {
    if (this.db().hasEntries(partition.key, partition.description, partition.os, partition.resolution)) return true;
    return absences && this.db().assertionsStarting(partition.key, absence(partition.description, ''), partition.os, partition.resolution)
      .some((r) => isAbsenceOf(r.statement, partition.description));
  }

  /** The cached element for a find, when the screen and its crop still match (see lookupAll for `wholeScreen`). */
  lookup(partition: Partition, screen: Screen, thresholds: CacheThresholds, wholeScreen = true): CacheLookup {
    const group = this.lookupAll(partition, screen, thresholds, wholeScreen);
    return { candidate: group.candidates?.[0] ?? null, info: group.info, similarity: group.similarity, samePixels: group.samePixels, evictStale: group.evictStale, foundBy: group.foundBy };
  }

  /**
   * The cached elements of a partition (one for find, all of a findAll): a
   * hit needs the screen within the threshold and every crop found again,
   * where it stood or, with `wholeScreen`, anywhere.
   */
  lookupAll(partition: Partition, screen: Screen, thresholds: CacheThresholds, wholeScreen = true): GroupLookup {
    const miss = (diffPercent: number | null, similarity: number | null = null): GroupLookup => ({
      candidates: null, similarity, info: missInfo(diffPercent),
    });
    // The groups whose screen is within the threshold, the nearest first: one per screen the element was found on.
    const near: { rows: CacheRow[]; stored: { data: Buffer; format: string }; diff: number }[] = [];
    let nearest: number | null = null;
    for (const rows of this.db().groups(partition.key, partition.description, partition.os, partition.resolution)) {
      const stored = this.storedScreen(rows[0].screen_hash);
      if (!stored || stored.width !== screen.width || stored.height !== screen.height) continue;
      const diff = this.screenDiff(stored.data, screen);
      nearest = nearest === null ? diff : Math.min(nearest, diff);
      if (diff <= thresholds.screen) near.push({ rows, stored, diff });
    }
    const percent = (diff: number) => Math.round(diff * 10000) / 100;
    if (!near.length) return miss(nearest === null ? null : percent(nearest));
    near.sort((a, b) => a.diff - b.diff);
    // Every group where its elements stood first; only then, the costlier search over the whole screen
    // for elements that moved: the right variant (the log-in page's field, not the sign-up page's) is
    // most often where it was.
    if (wholeScreen) {
      for (const { rows, stored, diff } of near) {
        const found = this.findGroup(rows, stored, screen, thresholds, percent(diff), false);
        if (found.candidates) return found;
      }
    }
    let missed: GroupLookup | null = null;
    for (const { rows, stored, diff } of near) {
      const found = this.findGroup(rows, stored, screen, thresholds, percent(diff), wholeScreen);
      if (found.candidates) return found;
      // The nearest screen's group says why. It is proven wrong (and goes once the engine finds the
      // element) only on its own screen: the same but for where its elements stood. On a screen that
      // differs elsewhere it may be another page's group (a field of a sign-up page and of a log-in
      // page), kept until the oldest make room.
      missed ??= this.sameScreenBut(rows, stored.data, screen) ? found : { ...found, evictStale: undefined, foundBy: undefined };
    }
    return missed!;
  }

  /** Whether a stored screen and this one differ, beyond a caret or a clock, only where the group's elements stood. */
  private sameScreenBut(rows: CacheRow[], stored: Buffer, screen: Screen): boolean {
    const x = Math.min(...rows.map((r) => r.x));
    const y = Math.min(...rows.map((r) => r.y));
    const around = { x, y, width: Math.max(...rows.map((r) => r.x + r.width)) - x, height: Math.max(...rows.map((r) => r.y + r.height)) - y };
    return screenDifference(screen.data, stored, screen.width, 0.1, around).pixels <= SAME_SCREEN * screen.width * screen.height;
  }

  /**
   * A group's elements found again on the screen, near where they stood or,
   * with `wholeScreen`, anywhere; or a miss whose entries go once the engine
   * finds the element elsewhere.
   */
  private findGroup(rows: CacheRow[], stored: { data: Buffer; format: string }, screen: Screen, thresholds: CacheThresholds, diffPercent: number, wholeScreen: boolean): GroupLookup {
    let fullGrey: Grey | null = null;
    const hits: { row: CacheRow; hit: { x: number; y: number; score: number }; strategy: CacheInfo['strategy'] }[] = [];
    let allSame = true;
    for (const row of rows) {
      let hit = { x: row.x, y: row.y, score: 1 };
      let strategy: CacheInfo['strategy'] = 'pixel-diff';
      // Where it was, pixel for pixel, needs no search.
      if (stored.format !== screen.format || !samePixels(screen, row)) {
        allSame = false;
        const template = greyOf(row.crop, row.width, row.height, stored.format as Screen['format']);
        const window = { x: Math.max(0, row.x - NEAR_RADIUS), y: Math.max(0, row.y - NEAR_RADIUS), width: 0, height: 0 };
        window.width = Math.min(screen.width, row.x + row.width + NEAR_RADIUS) - window.x;
        window.height = Math.min(screen.height, row.y + row.height + NEAR_RADIUS) - window.y;
        const near = searchNear(greyOf(screen.data, screen.width, screen.height, screen.format, window), template, row.x - window.x, row.y - window.y, NEAR_RADIUS);
        hit = { x: near.x + window.x, y: near.y + window.y, score: near.score };
        strategy = hit.x === row.x && hit.y === row.y ? 'pixel-diff' : 'template-match';
        if (hit.score < thresholds.element && wholeScreen) {
          // Moved further: look over the whole screen.
          fullGrey ??= greyOf(screen.data, screen.width, screen.height, screen.format);
          hit = searchScreen(fullGrey, template);
          strategy = 'template-match';
        }
      }
      if (hit.score < thresholds.element) {
        // The element is nowhere on this screen. It may not be shown yet (a find that waits
        // for it), so the entry goes only once the engine finds the element after all.
        return {
          candidates: null, similarity: round(hit.score), evictStale: () => this.evict(rows), foundBy: row.engine,
          info: missInfo(diffPercent),
        };
      }
      // Two elements of a findAll found again on one spot: the screen has fewer of them than the group.
      if (hits.some((h) => Math.abs(h.hit.x - hit.x) < row.width / 2 && Math.abs(h.hit.y - hit.y) < row.height / 2)) {
        return { candidates: null, similarity: round(hit.score), info: missInfo(diffPercent) };
      }
      hits.push({ row, hit, strategy });
    }
    this.db().touch(rows.map((r) => r.id));
    const worst = Math.min(...hits.map((h) => h.hit.score));
    const strategy = hits.some((h) => h.strategy === 'template-match') ? 'template-match' : 'pixel-diff';
    const first = rows[0];
    return {
      similarity: round(worst),
      samePixels: allSame,
      info: { hit: true, strategy, createdAt: first.created_at, diffPercent, imageUrl: first.crop_path ? pathToFileURL(first.crop_path).href : null },
      candidates: hits.map(({ row, hit, strategy: how }) => {
        const box: Box = { x: hit.x, y: hit.y, width: row.width, height: row.height };
        return {
          box, text: row.text ?? undefined, confidence: row.confidence, engine: row.engine, evidence: box, ...(row.selector ? { selector: row.selector } : {}),
          reason: `${CACHED}(${how}, screen ${diffPercent}% different, crop similarity ${round(hit.score)}): ${row.reason}`,
        };
      }),
    };
  }

  /** A passed assertion judged on a screen within `threshold` of this one, or null with the reason it did not hold. */
  lookupAssertion(partition: Partition, screen: Screen, threshold: number): AssertionLookup {
    const miss = (diffPercent: number | null): AssertionLookup => ({ verdict: null, info: missInfo(diffPercent) });
    const row = this.db().assertion(partition.key, partition.description, partition.os, partition.resolution);
    const stored = row ? this.storedScreen(row.screen_hash) : null;
    if (!row || !stored || stored.width !== screen.width || stored.height !== screen.height) return miss(null);
    const diff = this.screenDiff(stored.data, screen);
    const diffPercent = Math.round(diff * 10000) / 100;
    if (diff > threshold) return miss(diffPercent);
    this.db().touchAssertion(row.id);
    return { verdict: { reason: row.reason, engine: row.engine }, info: { hit: true, strategy: 'pixel-diff', createdAt: row.created_at, diffPercent, imageUrl: null } };
  }

  /**
   * Whether the element was found absent on this very screen before: a look
   * that expects nothing there (`timeout: 0`) and whose test passed leaves
   * that as an assertion. Only the same pixels count, apart from a text
   * caret: a few new letters change fewer pixels than any threshold a
   * present element's screen may differ by.
   */
  lookupAbsence(partition: Partition, screen: Screen): AssertionLookup {
    const rows = this.db().assertionsStarting(partition.key, absence(partition.description, ''), partition.os, partition.resolution);
    for (const row of rows.filter((r) => isAbsenceOf(r.statement, partition.description))) {
      const stored = this.storedScreen(row.screen_hash);
      if (!stored || stored.width !== screen.width || stored.height !== screen.height) continue;
      const { pixels, box } = screenDifference(screen.data, stored.data, screen.width, 0.1);
      if (box && !(box.width <= CARET_WIDTH && box.height <= CARET_HEIGHT)) continue;
      this.db().touchAssertion(row.id);
      const diffPercent = Math.round((pixels / (screen.width * screen.height)) * 1e6) / 1e4;
      return { verdict: { reason: row.reason, engine: row.engine }, info: { hit: true, strategy: 'absent', createdAt: row.created_at, diffPercent, imageUrl: null } };
    }
    return { verdict: null, info: missInfo() };
  }

  /**
   * Notes that the element is not on this screen; written by commit(), when
   * the test has passed. A test may look on many screens (scrolling until it
   * shows): each is kept, up to MAX_ABSENCES a description.
   */
  recordAbsence(partition: Partition, screen: Screen, verdict: { reason: string; engine: string }): void {
    const seen = this.pendingAssertions.filter((p) => isAbsenceOf(p.partition.description, partition.description)
      && samePartition({ ...p.partition, description: partition.description }, partition)).length;
    if (seen >= MAX_ABSENCES) return;
    this.recordAssertion({ ...partition, description: absence(partition.description, String(seen + 1)) }, screen, verdict);
  }

  /** Notes a passed assertion; written by commit(), when the test has passed. */
  recordAssertion(partition: Partition, screen: Screen, verdict: { reason: string; engine: string }): void {
    this.pendingAssertions = this.pendingAssertions.filter((p) => !samePartition(p.partition, partition));
    this.pendingAssertions.push({ partition, screen: this.deflate(screen), verdict });
    if (this.pendingAssertions.length > MAX_PENDING) this.pendingAssertions.shift();
  }

  /** Share of pixels (0-1) that differ between a stored screen and this one. */
  private screenDiff(stored: Buffer, screen: Screen): number {
    const differing = differingPixels(screen.data, stored, 0.1);
    return differing / (screen.width * screen.height);
  }

  /** Notes a located element (or a findAll's elements); written by commit(), when the test has passed. */
  record(partition: Partition, screen: Screen, candidates: Candidate[]): void {
    if (!candidates.length) return;
    // A description found on several screens keeps a group for each, up to MAX_VARIANTS: the oldest makes room.
    const same = this.pending.filter((p) => samePartition(p.partition, partition));
    if (same.length >= MAX_VARIANTS) this.pending = this.pending.filter((p) => p !== same[0]);
    const items = candidates.map((candidate) => {
      const box = clampBox(candidate.box, screen);
      return { candidate, box, crop: cropPixels(screen, box) };
    });
    this.pending.push({ partition, screen: this.deflate(screen), format: screen.format, items });
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }

  pendingCount(): number {
    return this.pending.length + this.pendingAssertions.length;
  }

  discard(): number {
    const count = this.pendingCount();
    this.pending = [];
    this.pendingAssertions = [];
    return count;
  }

  /** Writes the pending entries in one transaction; returns how many elements. */
  async commit(): Promise<number> {
    const pending = this.pending;
    const assertions = this.pendingAssertions;
    this.pending = [];
    this.pendingAssertions = [];
    if (!pending.length && !assertions.length) return 0;
    const screens = await Promise.all(pending.map((p) => p.screen));
    const assertionRows = await Promise.all(assertions.map(async ({ partition, screen, verdict }) => {
      const row: NewAssertion = {
        cache_key: partition.key, statement: partition.description, os: partition.os, resolution: partition.resolution,
        screen_hash: (await screen).hash, reason: verdict.reason, engine: verdict.engine, created_at: new Date().toISOString(),
      };
      return { row, screen: await screen };
    }));
    fs.mkdirSync(this.cropDir(), { recursive: true });
    const groups = pending.map(({ partition, format, items }, g) => ({
      rows: items.map(({ candidate, box, crop }, item): NewEntry => ({
        cache_key: partition.key, description: partition.description, os: partition.os, resolution: partition.resolution, item,
        ...box, text: candidate.text ?? null, confidence: candidate.confidence, engine: candidate.engine, reason: candidate.reason, selector: candidate.selector ?? null,
        screen_hash: screens[g].hash, crop, created_at: new Date().toISOString(),
      })),
      screen: screens[g],
      cropPath: (id: number) => path.join(this.cropDir(), `${id}.png`),
      pngs: items.map(({ box, crop }) => pixelsToPng(crop, box.width, box.height, format)),
    }));
    const { ids, unused } = this.db().commit(groups, this.maxEntries, assertionRows);
    for (const file of unused) fs.rmSync(file, { force: true });
    groups.forEach((group, g) => ids[g].forEach((id, item) => fs.writeFileSync(group.cropPath(id), group.pngs[item])));
    return ids.reduce((sum, list) => sum + list.length, 0) + assertionRows.length;
  }

  /** The screen as stored: deflated raw pixels, named by the hash of that form. */
  private deflate(screen: Screen): Promise<ScreenRow> {
    let row = this.deflating.get(screen.data);
    if (!row) {
      const { width, height, format } = screen;
      row = new Promise<Buffer>((resolve, reject) => zlib.deflate(screen.data, { level: 1 }, (e, out) => (e ? reject(e) : resolve(out))))
        .then((data) => ({ hash: createHash('sha1').update(data).digest('hex'), width, height, format, data }));
      row.catch(() => undefined); // a failed deflation surfaces at commit
      this.deflating.set(screen.data, row);
    }
    return row;
  }

  private evict(rows: CacheRow[]): void {
    this.db().remove(rows.map((r) => r.id));
    for (const row of rows) if (row.crop_path) fs.rmSync(row.crop_path, { force: true });
  }

  private storedScreen(hash: string): { width: number; height: number; format: string; data: Buffer } | null {
    const row = this.db().screen(hash);
    if (!row) return null;
    let data = this.decoded.get(hash);
    if (!data) {
      data = zlib.inflateSync(row.data);
      this.decoded.set(hash, data);
      if (this.decoded.size > DECODED_SCREENS) this.decoded.delete(this.decoded.keys().next().value as string);
    }
    return { width: row.width, height: row.height, format: row.format, data };
  }

  /** Closes the database handle; pending entries are kept and a later call opens it again. */
  close(): void {
    this.store?.close();
    this.store = null;
    this.decoded.clear();
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;

/** How a cached candidate's reason starts, before the reason it was found for. */
const CACHED = 'cached ';
/** The cache's words before that reason: `cached (how, how different): `. */
const CACHED_WORDS = new RegExp(`^${CACHED}\\([^)]*\\): `);

/** A cached candidate as the engine found it, to be kept for another screen: its reason without the cache's words. */
export function asFound(candidate: Candidate): Candidate {
  return candidate.reason.startsWith(CACHED) ? { ...candidate, reason: candidate.reason.replace(CACHED_WORDS, '') } : candidate;
}

/** Whether the element's crop is on the screen where it was, pixel for pixel: then no search is needed. */
function samePixels(screen: Screen, row: CacheRow): boolean {
  if (row.x + row.width > screen.width || row.y + row.height > screen.height || row.crop.length !== row.width * row.height * 4) return false;
  const rowBytes = row.width * 4;
  for (let y = 0; y < row.height; y++) {
    const at = ((row.y + y) * screen.width + row.x) * 4;
    if (screen.data.compare(row.crop, y * rowBytes, (y + 1) * rowBytes, at, at + rowBytes) !== 0) return false;
  }
  return true;
}

/** An absence is kept as the assertion that the element is not shown, numbered by the screens of one test it was looked for on. */
const absence = (description: string, screen: string) => `absent: ${description} #${screen}`;
const MAX_ABSENCES = 40;
const isAbsenceOf = (statement: string, description: string) => {
  const prefix = absence(description, '');
  return statement.startsWith(prefix) && /^\d+$/.test(statement.slice(prefix.length));
};
/** A text caret blinking between two looks: at most this narrow and this tall. */
const CARET_WIDTH = 3;
const CARET_HEIGHT = 48;
/** What a lookup that found nothing reports, with how far the nearest screen was, when one was compared. */
const missInfo = (diffPercent: number | null = null): CacheInfo => ({ hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent, imageUrl: null });

function samePartition(a: Partition, b: Partition): boolean {
  return a.key === b.key && a.description === b.description && a.os === b.os && a.resolution === b.resolution;
}

/** Grey levels of 4-byte pixels, optionally of a region only. */
function greyOf(data: Buffer, width: number, height: number, format: Screen['format'], region?: Box): Grey {
  const area = region ?? { x: 0, y: 0, width, height };
  const out = new Uint8Array(area.width * area.height);
  const [r, b] = format === 'bgrx' ? [2, 0] : [0, 2];
  for (let y = 0; y < area.height; y++) {
    for (let x = 0; x < area.width; x++) {
      const i = ((area.y + y) * width + area.x + x) * 4;
      out[y * area.width + x] = (data[i + r] * 77 + data[i + 1] * 150 + data[i + b] * 29) >> 8;
    }
  }
  return { width: area.width, height: area.height, data: out };
}

