import fs from 'fs';
import path from 'path';
import { openDb } from '../store/db';
import { CacheStore } from '../cache/store';
import { entryImages } from '../cache/entry-images';
import { parseFlags } from './flags';
import { defaultStateDir } from '../config/state-dir';

/** `glance cache list [--key K]`, `glance cache show <id>`, `glance cache clear [--key K]`. */
export async function cacheCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  const [action = 'list', id] = words;
  const key = typeof flags.key === 'string' ? flags.key : undefined;
  const db = openDb(defaultStateDir());
  const store = new CacheStore(db);
  try {
    if (action === 'list') {
      const rows = store.list(key);
      if (!rows.length) console.log(key ? `No cache entries for key ${key}.` : 'The cache is empty.');
      for (const r of rows) {
        console.log(`${String(r.id).padStart(5)}  ${r.cache_key.slice(0, 12)}  ${r.resolution}  ${r.x},${r.y} ${r.width}x${r.height}  hits ${r.hits}  last used ${new Date(r.last_used_at).toISOString()}  "${r.description}"`);
      }
      return 0;
    }
    if (action === 'show') {
      const row = id ? store.get(Number(id)) : null;
      if (!row) {
        console.error(`No cache entry with id '${id}'. See 'glance cache list'.`);
        return 1;
      }
      const out = path.join(defaultStateDir(), 'cache', 'show', String(row.id));
      fs.mkdirSync(out, { recursive: true });
      const images = await entryImages(store, row);
      if (images.screen) fs.writeFileSync(path.join(out, 'screen.png'), images.screen);
      fs.writeFileSync(path.join(out, 'crop.png'), images.crop);
      console.log(`entry ${row.id}: "${row.description}" (${row.os}, ${row.resolution}), key ${row.cache_key}`);
      console.log(`  box ${row.x},${row.y} ${row.width}x${row.height}, text ${JSON.stringify(row.text)}, confidence ${row.confidence}, ${row.engine}`);
      console.log(`  created ${row.created_at}, ${row.hits} hits, last used ${new Date(row.last_used_at).toISOString()}`);
      console.log(`  why: ${row.reason}`);
      console.log(`  images: ${path.join(out, 'crop.png')} and ${path.join(out, 'screen.png')}`);
      return 0;
    }
    if (action === 'clear') {
      const { removed, cropPaths } = store.clear(key);
      for (const file of cropPaths) fs.rmSync(file, { force: true });
      console.log(`Removed ${removed} cache entr${removed === 1 ? 'y' : 'ies'}${key ? ` for key ${key}` : ''}.`);
      return 0;
    }
    console.error(`Unknown cache action '${action}'; use list [--key K], show <id> or clear [--key K].`);
    return 2;
  } finally {
    db.close();
  }
}
