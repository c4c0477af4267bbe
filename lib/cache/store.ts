import { Db } from '../store/db';

/**
 * Cache entries in `.glance/glance.db`. An entry is one located element,
 * partitioned by cache key, description, OS and resolution; screens are
 * stored once (deflated raw pixels) and shared by the entries found on them.
 */
export interface CacheRow {
  id: number;
  cache_key: string;
  description: string;
  os: string;
  resolution: string;
  /** Position in a findAll group; 0 for find. */
  item: number;
  x: number;
  y: number;
  width: number;
  height: number;
  text: string | null;
  confidence: number;
  engine: string;
  reason: string;
  selector: string | null;
  screen_hash: string;
  crop: Buffer;
  crop_path: string | null;
  created_at: string;
  last_used_at: number;
  hits: number;
}

export interface ScreenRow {
  hash: string;
  width: number;
  height: number;
  format: string;
  data: Buffer;
}

export type NewEntry = Omit<CacheRow, 'id' | 'last_used_at' | 'hits' | 'crop_path'>;

/** A passed assert(), kept against the screen it was judged on. */
export interface AssertionRow {
  id: number;
  cache_key: string;
  statement: string;
  os: string;
  resolution: string;
  screen_hash: string;
  reason: string;
  engine: string;
  created_at: string;
  last_used_at: number;
  hits: number;
}

export type NewAssertion = Omit<AssertionRow, 'id' | 'last_used_at' | 'hits'>;

/** Screens one description keeps a group of entries for, at most. */
export const MAX_VARIANTS = 4;

/** Screens no entry and no assertion uses any more. */
/** Screens no entry or assertion refers to any more. */
export const UNUSED_SCREENS = 'DELETE FROM cache_screens WHERE hash NOT IN (SELECT screen_hash FROM cache_entries) AND hash NOT IN (SELECT screen_hash FROM cache_assertions)';

export class CacheStore {
  constructor(private readonly db: Db) {}

  /**
   * The groups of one partition, one per screen it was found on, the most
   * recently used first; each in item order (one row for find, one per
   * element for findAll).
   */
  groups(key: string, description: string, os: string, resolution: string): CacheRow[][] {
    const rows = this.db.prepare('SELECT * FROM cache_entries WHERE cache_key = ? AND description = ? AND os = ? AND resolution = ? ORDER BY item')
      .all(key, description, os, resolution) as CacheRow[];
    const groups = new Map<string, CacheRow[]>();
    for (const row of rows) groups.set(row.screen_hash, [...(groups.get(row.screen_hash) ?? []), row]);
    const used = (group: CacheRow[]) => Math.max(...group.map((r) => r.last_used_at));
    return [...groups.values()].sort((a, b) => used(b) - used(a));
  }

  /** Whether any element is cached for the partition: a find of one that holds none gains nothing from a lookup. */
  hasEntries(key: string, description: string, os: string, resolution: string): boolean {
    return !!this.db.prepare('SELECT 1 FROM cache_entries WHERE cache_key = ? AND description = ? AND os = ? AND resolution = ? LIMIT 1')
      .get(key, description, os, resolution);
  }

  get(id: number): CacheRow | null {
    return (this.db.prepare('SELECT * FROM cache_entries WHERE id = ?').get(id) as CacheRow | undefined) ?? null;
  }

  screen(hash: string): ScreenRow | null {
    return (this.db.prepare('SELECT * FROM cache_screens WHERE hash = ?').get(hash) as ScreenRow | undefined) ?? null;
  }

  assertion(key: string, statement: string, os: string, resolution: string): AssertionRow | null {
    return (this.db.prepare('SELECT * FROM cache_assertions WHERE cache_key = ? AND statement = ? AND os = ? AND resolution = ?')
      .get(key, statement, os, resolution) as AssertionRow | undefined) ?? null;
  }

  /** The assertions whose statement starts with `prefix`, most recently used first. */
  assertionsStarting(key: string, prefix: string, os: string, resolution: string): AssertionRow[] {
    return this.db.prepare('SELECT * FROM cache_assertions WHERE cache_key = ? AND substr(statement, 1, ?) = ? AND os = ? AND resolution = ? ORDER BY last_used_at DESC')
      .all(key, prefix.length, prefix, os, resolution) as AssertionRow[];
  }

  touchAssertion(id: number): void {
    this.db.prepare('UPDATE cache_assertions SET last_used_at = ?, hits = hits + 1 WHERE id = ?').run(Date.now(), id);
  }

  touch(ids: number[]): void {
    const touch = this.db.prepare('UPDATE cache_entries SET last_used_at = ?, hits = hits + 1 WHERE id = ?');
    for (const id of ids) touch.run(Date.now(), id);
  }

  remove(ids: number[]): void {
    const remove = this.db.prepare('DELETE FROM cache_entries WHERE id = ?');
    for (const id of ids) remove.run(id);
  }

  /**
   * Writes groups of entries (and their screens) in one transaction. A group
   * replaces its partition's group of the same screen, and a partition keeps
   * its MAX_VARIANTS most recently used groups; returns the crop files no
   * longer used.
   */
  close(): void {
    this.db.close();
  }

  commit(groups: { rows: NewEntry[]; screen: ScreenRow; cropPath: (id: number) => string }[], maxEntries: number, assertions: { row: NewAssertion; screen: ScreenRow }[] = []): { ids: number[][]; unused: string[] } {
    return this.db.transaction(() => {
      const unused: string[] = [];
      const saveScreen = this.db.prepare('INSERT OR IGNORE INTO cache_screens (hash, width, height, format, data) VALUES (@hash, @width, @height, @format, @data)');
      const saveAssertion = this.db.prepare(`INSERT OR REPLACE INTO cache_assertions
        (cache_key, statement, os, resolution, screen_hash, reason, engine, created_at, last_used_at, hits)
        VALUES (@cache_key, @statement, @os, @resolution, @screen_hash, @reason, @engine, @created_at, @now, 0)`);
      for (const { row, screen } of assertions) {
        saveScreen.run(screen);
        saveAssertion.run({ ...row, now: Date.now() });
      }
      const partitionOf = 'cache_key = ? AND description = ? AND os = ? AND resolution = ?';
      const old = this.db.prepare(`SELECT crop_path FROM cache_entries WHERE ${partitionOf} AND screen_hash = ?`);
      const clear = this.db.prepare(`DELETE FROM cache_entries WHERE ${partitionOf} AND screen_hash = ?`);
      // The groups past the newest MAX_VARIANTS of a partition, by their rows' last use.
      const surplus = `SELECT screen_hash FROM cache_entries WHERE ${partitionOf} GROUP BY screen_hash ORDER BY max(last_used_at) DESC LIMIT -1 OFFSET ${MAX_VARIANTS}`;
      const oldest = this.db.prepare(`SELECT crop_path FROM cache_entries WHERE ${partitionOf} AND screen_hash IN (${surplus})`);
      const trim = this.db.prepare(`DELETE FROM cache_entries WHERE ${partitionOf} AND screen_hash IN (${surplus})`);
      const save = this.db.prepare(`INSERT INTO cache_entries
        (cache_key, description, os, resolution, item, x, y, width, height, text, confidence, engine, reason, selector, screen_hash, crop, created_at, last_used_at, hits)
        VALUES (@cache_key, @description, @os, @resolution, @item, @x, @y, @width, @height, @text, @confidence, @engine, @reason, @selector, @screen_hash, @crop, @created_at, @now, 0)
        RETURNING id`);
      const setPath = this.db.prepare('UPDATE cache_entries SET crop_path = ? WHERE id = ?');
      const ids = groups.map(({ rows, screen, cropPath }) => {
        const [first] = rows;
        const partition = [first.cache_key, first.description, first.os, first.resolution];
        const paths = (found: unknown[]) => (found as { crop_path: string | null }[]).map((r) => r.crop_path).filter((p): p is string => !!p);
        unused.push(...paths(old.all(...partition, screen.hash)));
        clear.run(...partition, screen.hash);
        saveScreen.run(screen);
        const saved = rows.map((row) => {
          const { id } = save.get({ ...row, now: Date.now() }) as { id: number };
          setPath.run(cropPath(id), id);
          return id;
        });
        unused.push(...paths(oldest.all(...partition, ...partition)));
        trim.run(...partition, ...partition);
        return saved;
      });
      unused.push(...this.evict(maxEntries));
      return { ids, unused };
    }).immediate();
  }

  /** Keeps the `maxEntries` most recently used entries, and only the screens they use. */
  evict(maxEntries: number): string[] {
    const gone = this.db.prepare('SELECT crop_path FROM cache_entries ORDER BY last_used_at DESC LIMIT -1 OFFSET ?').all(maxEntries) as { crop_path: string | null }[];
    this.db.prepare('DELETE FROM cache_entries WHERE id IN (SELECT id FROM cache_entries ORDER BY last_used_at DESC LIMIT -1 OFFSET ?)').run(maxEntries);
    this.db.prepare('DELETE FROM cache_assertions WHERE id IN (SELECT id FROM cache_assertions ORDER BY last_used_at DESC LIMIT -1 OFFSET ?)').run(maxEntries);
    this.db.prepare(UNUSED_SCREENS).run();
    return gone.map((g) => g.crop_path).filter((p): p is string => !!p);
  }

  list(key?: string): Omit<CacheRow, 'crop'>[] {
    const columns = 'id, cache_key, description, os, resolution, item, x, y, width, height, text, confidence, engine, reason, selector, screen_hash, crop_path, created_at, last_used_at, hits';
    return (key
      ? this.db.prepare(`SELECT ${columns} FROM cache_entries WHERE cache_key = ? ORDER BY last_used_at DESC`).all(key)
      : this.db.prepare(`SELECT ${columns} FROM cache_entries ORDER BY last_used_at DESC`).all()) as Omit<CacheRow, 'crop'>[];
  }

  /** Entries whose key starts with `prefix` (a team's, on the team server), most recently used first. */
  listUnder(prefix: string, limit = 500): Omit<CacheRow, 'crop'>[] {
    const columns = 'id, cache_key, description, os, resolution, item, x, y, width, height, text, confidence, engine, reason, selector, screen_hash, crop_path, created_at, last_used_at, hits';
    return this.db.prepare(`SELECT ${columns} FROM cache_entries WHERE substr(cache_key, 1, ?) = ? ORDER BY last_used_at DESC LIMIT ?`)
      .all(prefix.length, prefix, limit) as Omit<CacheRow, 'crop'>[];
  }

  /** Deletes one entry (and its screen when no other entry uses it); returns its crop file to remove, if any. */
  delete(id: number): { removed: boolean; cropPath: string | null } {
    return this.db.transaction(() => {
      const row = this.db.prepare('SELECT crop_path FROM cache_entries WHERE id = ?').get(id) as { crop_path: string | null } | undefined;
      if (!row) return { removed: false, cropPath: null };
      this.db.prepare('DELETE FROM cache_entries WHERE id = ?').run(id);
      this.db.prepare(UNUSED_SCREENS).run();
      return { removed: true, cropPath: row.crop_path };
    }).immediate();
  }

  clear(key?: string): { removed: number; cropPaths: string[] } {
    return this.db.transaction(() => {
      const rows = (key ? this.db.prepare('SELECT crop_path FROM cache_entries WHERE cache_key = ?').all(key) : this.db.prepare('SELECT crop_path FROM cache_entries').all()) as { crop_path: string | null }[];
      const removed = key ? this.db.prepare('DELETE FROM cache_entries WHERE cache_key = ?').run(key).changes : this.db.prepare('DELETE FROM cache_entries').run().changes;
      if (key) this.db.prepare('DELETE FROM cache_assertions WHERE cache_key = ?').run(key);
      else this.db.prepare('DELETE FROM cache_assertions').run();
      this.db.prepare(UNUSED_SCREENS).run();
      return { removed, cropPaths: rows.map((r) => r.crop_path).filter((p): p is string => !!p) };
    }).immediate();
  }
}
