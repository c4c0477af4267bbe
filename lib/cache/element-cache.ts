import fs from 'fs';
import path from 'path';
import zlib from 'zlib';
import { createHash } from 'crypto';
import { pathToFileURL } from 'url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { Candidate, Screen } from '../locate/engine';
import { Box } from '../locate/geometry';
import { openDb } from '../service/store';
import { CacheRow, CacheStore, NewEntry, ScreenRow } from './store';
import { Grey, searchNear, searchScreen } from './template';
import type { CacheInfo } from '../client/element';

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
  /** On a miss whose element was nowhere on the screen: removes the entry, once the engine proves it wrong by finding the element. */
  evictStale?: () => void;
}

const NEAR_RADIUS = 6;
const DECODED_SCREENS = 8;
export const DEFAULT_MAX_ENTRIES = 5000;

interface Pending {
  partition: Partition;
  screen: Screen;
  candidates: Candidate[];
}

export interface GroupLookup {
  candidates: Candidate[] | null;
  info: CacheInfo;
  /** The lowest crop similarity of the group. */
  similarity: number | null;
  evictStale?: () => void;
}

export class ElementCache {
  private store: CacheStore | null = null;
  private readonly decoded = new Map<string, Buffer>();
  private pending: Pending[] = [];

  constructor(private readonly stateDir: string, private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  private db(): CacheStore {
    if (!this.store) this.store = new CacheStore(openDb(this.stateDir));
    return this.store;
  }

  private cropDir(): string {
    return path.join(this.stateDir, 'cache');
  }

  /** The cached element for a find, when the screen and its crop still match. */
  lookup(partition: Partition, screen: Screen, thresholds: CacheThresholds): CacheLookup {
    const group = this.lookupAll(partition, screen, thresholds);
    return { candidate: group.candidates?.[0] ?? null, info: group.info, similarity: group.similarity, evictStale: group.evictStale };
  }

  /**
   * The cached elements of a partition (one for find, all of a findAll): a
   * hit needs the screen within the threshold and every crop found again.
   */
  lookupAll(partition: Partition, screen: Screen, thresholds: CacheThresholds): GroupLookup {
    const miss = (diffPercent: number | null, similarity: number | null = null): GroupLookup => ({
      candidates: null, similarity, info: { hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent, imageUrl: null },
    });
    const rows = this.db().group(partition.key, partition.description, partition.os, partition.resolution);
    if (!rows.length) return miss(null);
    const stored = this.storedScreen(rows[0].screen_hash);
    if (!stored || stored.width !== screen.width || stored.height !== screen.height) return miss(null);
    opaque(screen.data);
    const differing = pixelmatch(screen.data, stored.data, null, screen.width, screen.height, { threshold: 0.1, includeAA: true });
    const diff = differing / (screen.width * screen.height);
    const diffPercent = Math.round(diff * 10000) / 100;
    if (diff > thresholds.screen) return miss(diffPercent);

    let fullGrey: Grey | null = null;
    const hits = [];
    for (const row of rows) {
      const template = greyOf(row.crop, row.width, row.height, stored.format as Screen['format']);
      const window = { x: Math.max(0, row.x - NEAR_RADIUS), y: Math.max(0, row.y - NEAR_RADIUS), width: 0, height: 0 };
      window.width = Math.min(screen.width, row.x + row.width + NEAR_RADIUS) - window.x;
      window.height = Math.min(screen.height, row.y + row.height + NEAR_RADIUS) - window.y;
      const near = searchNear(greyOf(screen.data, screen.width, screen.height, screen.format, window), template, row.x - window.x, row.y - window.y, NEAR_RADIUS);
      let hit = { x: near.x + window.x, y: near.y + window.y, score: near.score };
      let strategy: CacheInfo['strategy'] = hit.x === row.x && hit.y === row.y ? 'pixel-diff' : 'template-match';
      if (hit.score < thresholds.element) {
        // Moved further: look over the whole screen.
        fullGrey ??= greyOf(screen.data, screen.width, screen.height, screen.format);
        hit = searchScreen(fullGrey, template);
        strategy = 'template-match';
      }
      if (hit.score < thresholds.element) {
        // The element is nowhere on this screen. It may not be shown yet (a find that waits
        // for it), so the entry goes only once the engine finds the element after all.
        return { ...miss(diffPercent, round(hit.score)), evictStale: () => this.evict(rows) };
      }
      hits.push({ row, hit, strategy });
    }
    this.db().touch(rows.map((r) => r.id));
    const worst = Math.min(...hits.map((h) => h.hit.score));
    const strategy = hits.some((h) => h.strategy === 'template-match') ? 'template-match' : 'pixel-diff';
    const first = rows[0];
    return {
      similarity: round(worst),
      info: { hit: true, strategy, createdAt: first.created_at, diffPercent, imageUrl: first.crop_path ? pathToFileURL(first.crop_path).href : null },
      candidates: hits.map(({ row, hit, strategy: how }) => {
        const box: Box = { x: hit.x, y: hit.y, width: row.width, height: row.height };
        return {
          box, text: row.text ?? undefined, confidence: row.confidence, engine: row.engine, evidence: box,
          reason: `cached (${how}, screen ${diffPercent}% different, crop similarity ${round(hit.score)}): ${row.reason}`,
        };
      }),
    };
  }

  /** Notes a located element (or a findAll's elements); written by commit(), when the test has passed. */
  record(partition: Partition, screen: Screen, candidates: Candidate[]): void {
    this.pending = this.pending.filter((p) => !samePartition(p.partition, partition));
    if (candidates.length) this.pending.push({ partition, screen, candidates });
  }

  pendingCount(): number {
    return this.pending.length;
  }

  discard(): number {
    const count = this.pending.length;
    this.pending = [];
    return count;
  }

  /** Writes the pending entries in one transaction; returns how many elements. */
  async commit(): Promise<number> {
    const pending = this.pending;
    this.pending = [];
    if (!pending.length) return 0;
    const screens = new Map<Buffer, ScreenRow>();
    for (const { screen } of pending) {
      if (screens.has(screen.data)) continue;
      opaque(screen.data);
      const hash = createHash('sha1').update(screen.data).digest('hex');
      const data = await new Promise<Buffer>((resolve, reject) => zlib.deflate(screen.data, { level: 1 }, (e, out) => (e ? reject(e) : resolve(out))));
      screens.set(screen.data, { hash, width: screen.width, height: screen.height, format: screen.format, data });
    }
    fs.mkdirSync(this.cropDir(), { recursive: true });
    const groups = pending.map(({ partition, screen, candidates }) => {
      const boxes = candidates.map((c) => clampBox(c.box, screen));
      const rows: NewEntry[] = candidates.map((candidate, item) => ({
        cache_key: partition.key, description: partition.description, os: partition.os, resolution: partition.resolution, item,
        ...boxes[item], text: candidate.text ?? null, confidence: candidate.confidence, engine: candidate.engine, reason: candidate.reason,
        screen_hash: screens.get(screen.data)!.hash, crop: cropPixels(screen, boxes[item]), created_at: new Date().toISOString(),
      }));
      return { rows, screen: screens.get(screen.data)!, cropPath: (id: number) => path.join(this.cropDir(), `${id}.png`), source: screen, boxes };
    });
    const { ids, unused } = this.db().commit(groups, this.maxEntries);
    for (const file of unused) fs.rmSync(file, { force: true });
    groups.forEach((group, g) => ids[g].forEach((id, item) => fs.writeFileSync(group.cropPath(id), cropPng(group.source, group.boxes[item]))));
    return ids.reduce((sum, list) => sum + list.length, 0);
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

  close(): void {
    this.store = null;
  }
}

const round = (v: number) => Math.round(v * 1000) / 1000;

function samePartition(a: Partition, b: Partition): boolean {
  return a.key === b.key && a.description === b.description && a.os === b.os && a.resolution === b.resolution;
}

/** X11 leaves the fourth byte of each pixel at 0; pixelmatch reads it as alpha, so it is set opaque. */
function opaque(data: Buffer): void {
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
}

function clampBox(box: Box, screen: Screen): Box {
  const x = Math.max(0, Math.min(screen.width - 1, box.x));
  const y = Math.max(0, Math.min(screen.height - 1, box.y));
  return { x, y, width: Math.max(1, Math.min(screen.width - x, box.width)), height: Math.max(1, Math.min(screen.height - y, box.height)) };
}

function cropPixels(screen: Screen, box: Box): Buffer {
  const out = Buffer.allocUnsafe(box.width * box.height * 4);
  for (let y = 0; y < box.height; y++) screen.data.copy(out, y * box.width * 4, ((box.y + y) * screen.width + box.x) * 4, ((box.y + y) * screen.width + box.x + box.width) * 4);
  return out;
}

function cropPng(screen: Screen, box: Box): Buffer {
  const png = new PNG({ width: box.width, height: box.height });
  const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
  const raw = cropPixels(screen, box);
  for (let i = 0; i < raw.length; i += 4) {
    png.data[i] = raw[i + r];
    png.data[i + 1] = raw[i + 1];
    png.data[i + 2] = raw[i + b];
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
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

