import type { SandboxBackendName } from '../config/backends';
import type { Db } from '../store/db';

/**
 * Who owns each sandbox, and its history, in the state database. Whether a
 * sandbox still runs is the backend's word (the local registry, an agent's
 * answer), never this table's: an owner row says who may use the sandbox.
 */
export interface OwnerRow {
  sandboxId: string;
  teamId: number;
  keyId: number;
  provider: SandboxBackendName | 'ip';
  resolution: string;
  createdAt: string;
  endedAt: string | null;
}

const COLUMNS = `sandbox_id AS sandboxId, team_id AS teamId, key_id AS keyId, provider, resolution, created_at AS createdAt, ended_at AS endedAt`;

/** Records (or takes over, for a released self-hosted agent) the owner of a sandbox. */
export function recordOwner(db: Db, row: Omit<OwnerRow, 'createdAt' | 'endedAt'>): void {
  db.prepare(`INSERT INTO sandbox_owners (sandbox_id, team_id, key_id, provider, resolution, created_at)
              VALUES (?, ?, ?, ?, ?, ?)
              ON CONFLICT (sandbox_id) DO UPDATE SET team_id = excluded.team_id, key_id = excluded.key_id,
                provider = excluded.provider, resolution = excluded.resolution, ended_at = NULL, end_reason = NULL`)
    .run(row.sandboxId, row.teamId, row.keyId, row.provider, row.resolution, new Date().toISOString());
}

export function ownerOf(db: Db, sandboxId: string): OwnerRow | null {
  return (db.prepare(`SELECT ${COLUMNS} FROM sandbox_owners WHERE sandbox_id = ?`).get(sandboxId) as OwnerRow | undefined) ?? null;
}

/** The team's sandboxes not yet recorded as ended, newest first. */
export function openSandboxesOf(db: Db, teamId: number): OwnerRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM sandbox_owners WHERE team_id = ? AND ended_at IS NULL ORDER BY created_at DESC`).all(teamId) as OwnerRow[];
}

/** Every sandbox not yet recorded as ended (for the server's reconciliation at start). */
export function openSandboxes(db: Db): OwnerRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM sandbox_owners WHERE ended_at IS NULL ORDER BY created_at`).all() as OwnerRow[];
}

export function markEnded(db: Db, sandboxId: string, reason: string): void {
  db.prepare('UPDATE sandbox_owners SET ended_at = ?, end_reason = ? WHERE sandbox_id = ? AND ended_at IS NULL').run(new Date().toISOString(), reason, sandboxId);
}
