import { InvalidOptionError } from '../config/errors';
import type { Db } from '../store/db';

/** Teams and their keys, as the admin commands (`glance teams`, `glance keys`) manage them. */
export interface TeamRow {
  id: number;
  name: string;
  /** Sandboxes the team may run at once; null for no limit. */
  sandboxLimit: number | null;
  createdAt: string;
  keys: number;
}

export interface KeyRow {
  id: number;
  hint: string;
  createdAt: string;
  revokedAt: string | null;
}

const TEAM_NAME = /^[A-Za-z0-9][\w.-]{0,63}$/;

/** Adds a team, or sets the limit of an existing one. */
export function addTeam(db: Db, name: string, sandboxLimit: number | null): TeamRow {
  if (!TEAM_NAME.test(name)) throw new InvalidOptionError('name', `Invalid team name '${name}': use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.`);
  if (sandboxLimit !== null && !(Number.isInteger(sandboxLimit) && sandboxLimit > 0)) {
    throw new InvalidOptionError('sandboxes', `Invalid --sandboxes ${sandboxLimit}: give a whole number of at least 1, or leave it out for no limit.`);
  }
  const existing = findTeam(db, name);
  if (existing) db.prepare('UPDATE teams SET sandbox_limit = ? WHERE id = ?').run(sandboxLimit, existing.id);
  else db.prepare('INSERT INTO teams (name, created_at, sandbox_limit) VALUES (?, ?, ?)').run(name, new Date().toISOString(), sandboxLimit);
  return findTeam(db, name)!;
}

export function listTeams(db: Db): TeamRow[] {
  return db.prepare(`SELECT t.id, t.name, t.sandbox_limit AS sandboxLimit, t.created_at AS createdAt,
                       (SELECT COUNT(*) FROM api_keys k WHERE k.team_id = t.id AND k.revoked_at IS NULL) AS keys
                     FROM teams t ORDER BY t.name`).all() as TeamRow[];
}

export function findTeam(db: Db, name: string): TeamRow | null {
  return listTeams(db).find((t) => t.name === name) ?? null;
}

export function teamById(db: Db, id: number): TeamRow | null {
  return listTeams(db).find((t) => t.id === id) ?? null;
}

/** The team, or an error that lists the teams there are. */
export function requireTeam(db: Db, name: string): TeamRow {
  const team = findTeam(db, name);
  if (team) return team;
  const known = listTeams(db).map((t) => t.name);
  throw new InvalidOptionError('team', `No team '${name}'${known.length ? ` (teams: ${known.join(', ')})` : ''}. Add it with 'glance teams add ${name}'.`);
}

export function listKeys(db: Db, teamId: number): KeyRow[] {
  return db.prepare('SELECT id, hint, created_at AS createdAt, revoked_at AS revokedAt FROM api_keys WHERE team_id = ? ORDER BY id').all(teamId) as KeyRow[];
}

/** Revokes a key of the team by its id or its hint (as `keys list` prints them); tokens issued for it stop working at once. */
export function revokeKey(db: Db, teamId: number, which: string): KeyRow {
  const keys = listKeys(db, teamId);
  const matches = keys.filter((k) => String(k.id) === which || k.hint === which || k.hint.replace('…', '') === which);
  if (matches.length !== 1) {
    throw new InvalidOptionError('key', `${matches.length ? 'Several keys match' : 'No key of this team matches'} '${which}'. Give the id that 'glance keys list --team NAME' shows.`);
  }
  db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?').run(new Date().toISOString(), matches[0].id);
  return listKeys(db, teamId).find((k) => k.id === matches[0].id)!;
}

/** Whether a key (by id) is still valid: checked on every request, so a revocation takes effect at once. */
export function keyActive(db: Db, keyId: number): boolean {
  return Boolean(db.prepare('SELECT 1 FROM api_keys WHERE id = ? AND revoked_at IS NULL').get(keyId));
}
