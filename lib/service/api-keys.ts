import { createHash, randomBytes } from 'crypto';
import { Db } from '../store/db';

/**
 * API keys: `glance_` + 32 random bytes. Only a SHA-256 hash is stored (the key
 * is high-entropy, so a slow hash adds nothing), plus a short hint for listings.
 */
const KEY_PATTERN = /^glance_[A-Za-z0-9_-]{43}$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function looksLikeKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** A masked form that is safe to print: the first characters only. */
export function keyHint(key: string): string {
  return `${key.slice(0, 11)}…`;
}

export function createApiKey(db: Db, teamName = 'default'): { key: string; teamId: number } {
  const key = `glance_${randomBytes(32).toString('base64url')}`;
  const now = new Date().toISOString();
  const teamId = db.transaction(() => {
    const team = db.prepare('SELECT id FROM teams WHERE name = ?').get(teamName) as { id: number } | undefined;
    const id = team?.id ?? Number(db.prepare('INSERT INTO teams (name, created_at) VALUES (?, ?)').run(teamName, now).lastInsertRowid);
    db.prepare('INSERT INTO api_keys (team_id, hash, hint, created_at) VALUES (?, ?, ?, ?)').run(id, hashKey(key), keyHint(key), now);
    return id;
  }).immediate();
  return { key, teamId };
}

/** The team a key belongs to, or null for an unknown or revoked key. */
export function findKey(db: Db, key: string): { keyId: number; teamId: number } | null {
  const row = db.prepare('SELECT id, team_id FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hashKey(key)) as
    { id: number; team_id: number } | undefined;
  return row ? { keyId: row.id, teamId: row.team_id } : null;
}
