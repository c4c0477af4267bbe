import fs from 'fs';
import path from 'path';
import Database from 'better-sqlite3';

/**
 * `.glance/glance.db`: teams, API keys (hashed), service secrets, who owns
 * which sandbox, the element cache and usage analytics. WAL mode
 * so that parallel test workers can read and write at once.
 */
export type Db = Database.Database;

const MIGRATIONS = [
  `CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);
   CREATE TABLE api_keys (
     id INTEGER PRIMARY KEY,
     team_id INTEGER NOT NULL REFERENCES teams(id),
     hash TEXT NOT NULL UNIQUE,
     hint TEXT NOT NULL,
     created_at TEXT NOT NULL,
     revoked_at TEXT
   );
   CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);`,
  `CREATE TABLE cache_screens (hash TEXT PRIMARY KEY, width INTEGER NOT NULL, height INTEGER NOT NULL, format TEXT NOT NULL, data BLOB NOT NULL);
   CREATE TABLE cache_entries (
     id INTEGER PRIMARY KEY,
     cache_key TEXT NOT NULL,
     description TEXT NOT NULL,
     os TEXT NOT NULL,
     resolution TEXT NOT NULL,
     x INTEGER NOT NULL, y INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
     text TEXT, confidence REAL NOT NULL, engine TEXT NOT NULL, reason TEXT NOT NULL,
     screen_hash TEXT NOT NULL REFERENCES cache_screens(hash),
     crop BLOB NOT NULL,
     crop_path TEXT,
     created_at TEXT NOT NULL,
     last_used_at INTEGER NOT NULL,
     hits INTEGER NOT NULL DEFAULT 0,
     UNIQUE (cache_key, description, os, resolution)
   );
   CREATE INDEX cache_entries_lru ON cache_entries (last_used_at);`,
  // findAll results are cached as a group: one row per element, numbered by `item`.
  `CREATE TABLE cache_items (
     id INTEGER PRIMARY KEY,
     cache_key TEXT NOT NULL,
     description TEXT NOT NULL,
     os TEXT NOT NULL,
     resolution TEXT NOT NULL,
     item INTEGER NOT NULL DEFAULT 0,
     x INTEGER NOT NULL, y INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
     text TEXT, confidence REAL NOT NULL, engine TEXT NOT NULL, reason TEXT NOT NULL,
     screen_hash TEXT NOT NULL REFERENCES cache_screens(hash),
     crop BLOB NOT NULL,
     crop_path TEXT,
     created_at TEXT NOT NULL,
     last_used_at INTEGER NOT NULL,
     hits INTEGER NOT NULL DEFAULT 0,
     UNIQUE (cache_key, description, os, resolution, item)
   );
   INSERT INTO cache_items (id, cache_key, description, os, resolution, item, x, y, width, height, text, confidence, engine, reason, screen_hash, crop, crop_path, created_at, last_used_at, hits)
     SELECT id, cache_key, description, os, resolution, 0, x, y, width, height, text, confidence, engine, reason, screen_hash, crop, crop_path, created_at, last_used_at, hits FROM cache_entries;
   DROP TABLE cache_entries;
   ALTER TABLE cache_items RENAME TO cache_entries;
   CREATE INDEX cache_entries_lru ON cache_entries (last_used_at);`,
  // assert() statements that passed, each against the screen it was judged on.
  `CREATE TABLE cache_assertions (
     id INTEGER PRIMARY KEY,
     cache_key TEXT NOT NULL,
     statement TEXT NOT NULL,
     os TEXT NOT NULL,
     resolution TEXT NOT NULL,
     screen_hash TEXT NOT NULL REFERENCES cache_screens(hash),
     reason TEXT NOT NULL,
     engine TEXT NOT NULL,
     created_at TEXT NOT NULL,
     last_used_at INTEGER NOT NULL,
     hits INTEGER NOT NULL DEFAULT 0,
     UNIQUE (cache_key, statement, os, resolution)
   );`,
  // Usage analytics: one row per command, kept on this machine (see lib/store/analytics.ts).
  `CREATE TABLE command_analytics (
     id INTEGER PRIMARY KEY,
     run_id TEXT NOT NULL,
     session_id TEXT,
     command TEXT NOT NULL,
     description TEXT,
     started_at TEXT NOT NULL,
     duration_ms REAL NOT NULL,
     outcome TEXT NOT NULL,
     error_name TEXT,
     cache_hit INTEGER,
     engine TEXT
   );
   CREATE INDEX command_analytics_run ON command_analytics (run_id, started_at);`,
  // An element found in the accessibility tree keeps its address there, to check a cached box against the tree.
  `ALTER TABLE cache_entries ADD COLUMN selector TEXT;`,
  // A description keeps a group per screen it was found on (a field of two pages of one feature): unique by screen too.
  `CREATE TABLE cache_variants (
     id INTEGER PRIMARY KEY,
     cache_key TEXT NOT NULL,
     description TEXT NOT NULL,
     os TEXT NOT NULL,
     resolution TEXT NOT NULL,
     item INTEGER NOT NULL DEFAULT 0,
     x INTEGER NOT NULL, y INTEGER NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
     text TEXT, confidence REAL NOT NULL, engine TEXT NOT NULL, reason TEXT NOT NULL,
     screen_hash TEXT NOT NULL REFERENCES cache_screens(hash),
     crop BLOB NOT NULL,
     crop_path TEXT,
     created_at TEXT NOT NULL,
     last_used_at INTEGER NOT NULL,
     hits INTEGER NOT NULL DEFAULT 0,
     selector TEXT,
     UNIQUE (cache_key, description, os, resolution, screen_hash, item)
   );
   INSERT INTO cache_variants (id, cache_key, description, os, resolution, item, x, y, width, height, text, confidence, engine, reason, screen_hash, crop, crop_path, created_at, last_used_at, hits, selector)
     SELECT id, cache_key, description, os, resolution, item, x, y, width, height, text, confidence, engine, reason, screen_hash, crop, crop_path, created_at, last_used_at, hits, selector FROM cache_entries;
   DROP TABLE cache_entries;
   ALTER TABLE cache_variants RENAME TO cache_entries;
   CREATE INDEX cache_entries_lru ON cache_entries (last_used_at);
   CREATE INDEX cache_entries_partition ON cache_entries (cache_key, description, os, resolution);`,
  // The team server: a team's sandbox limit, and who owns each sandbox (the backend says whether it still runs).
  `ALTER TABLE teams ADD COLUMN sandbox_limit INTEGER;
   CREATE TABLE sandbox_owners (
     sandbox_id TEXT PRIMARY KEY,
     team_id INTEGER NOT NULL REFERENCES teams(id),
     key_id INTEGER NOT NULL REFERENCES api_keys(id),
     provider TEXT NOT NULL,
     resolution TEXT NOT NULL,
     created_at TEXT NOT NULL,
     ended_at TEXT,
     end_reason TEXT
   );
   CREATE INDEX sandbox_owners_team ON sandbox_owners (team_id, created_at);`,
  // Runs reported to the team server: each scenario attempt with its outcome and evidence files; commands by team.
  `CREATE TABLE scenario_results (
     id INTEGER PRIMARY KEY,
     team_id INTEGER NOT NULL REFERENCES teams(id),
     run_id TEXT NOT NULL,
     scenario TEXT NOT NULL,
     feature TEXT NOT NULL,
     name TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     will_retry INTEGER NOT NULL,
     duration_ms REAL NOT NULL,
     failing_step TEXT,
     error TEXT,
     finished_at TEXT NOT NULL
   );
   CREATE INDEX scenario_results_run ON scenario_results (team_id, run_id);
   CREATE INDEX scenario_results_scenario ON scenario_results (team_id, scenario, finished_at);
   CREATE TABLE evidence_files (
     id INTEGER PRIMARY KEY,
     team_id INTEGER NOT NULL REFERENCES teams(id),
     result_id INTEGER NOT NULL REFERENCES scenario_results(id) ON DELETE CASCADE,
     kind TEXT NOT NULL,
     content_type TEXT NOT NULL,
     bytes INTEGER NOT NULL,
     file TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   ALTER TABLE command_analytics ADD COLUMN team_id INTEGER;`,
  // Agents of a team's own machines, registered on the team server: their tokens are kept encrypted.
  `CREATE TABLE agents (
     id INTEGER PRIMARY KEY,
     agent_id TEXT NOT NULL UNIQUE,
     host TEXT NOT NULL,
     port INTEGER NOT NULL,
     team_id INTEGER REFERENCES teams(id),
     token_sealed BLOB NOT NULL,
     added_at TEXT NOT NULL,
     UNIQUE (host, port)
   );`,
  // Sessions the team server opened: who found on which sandbox, and how each ended.
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     team_id INTEGER NOT NULL REFERENCES teams(id),
     key_id INTEGER NOT NULL,
     sandbox_id TEXT NOT NULL,
     opened_at TEXT NOT NULL,
     ended_at TEXT,
     end_reason TEXT
   );
   CREATE INDEX sessions_team ON sessions (team_id, opened_at);`,
  // What each command's vision-model calls cost (the console's model chart).
  `ALTER TABLE command_analytics ADD COLUMN model_calls INTEGER;
   ALTER TABLE command_analytics ADD COLUMN model_tokens INTEGER;`,
  // The desktop each registered agent serves: connect({ os }) is routed to a team's agents of that os.
  `ALTER TABLE agents ADD COLUMN os TEXT NOT NULL DEFAULT 'linux';`,
];

export function dbPath(stateDir: string): string {
  return path.join(stateDir, 'glance.db');
}

/** Opens (creating and migrating if needed) the state database. */
export function openDb(stateDir: string): Db {
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const db = new Database(dbPath(stateDir), { timeout: 10_000 });
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  const version = db.pragma('user_version', { simple: true }) as number;
  db.transaction(() => {
    for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]);
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  }).immediate();
  return db;
}
