import type { Db } from '../store/db';

/** Sessions in the state database: when each opened on which sandbox, and how it ended (the console's history). */
export function sessionOpened(db: Db, session: { id: string; teamId: number; keyId: number; sandboxId: string }): void {
  db.prepare('INSERT OR REPLACE INTO sessions (id, team_id, key_id, sandbox_id, opened_at) VALUES (?, ?, ?, ?, ?)')
    .run(session.id, session.teamId, session.keyId, session.sandboxId, new Date().toISOString());
}

export function sessionEnded(db: Db, id: string, reason: string): void {
  db.prepare('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL').run(new Date().toISOString(), reason, id);
}

/** Sessions left open by a server that stopped: their clients open them again on the next call. */
export function endOpenSessions(db: Db, reason: string): number {
  return db.prepare('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE ended_at IS NULL').run(new Date().toISOString(), reason).changes;
}

export interface SessionRow {
  id: string;
  sandboxId: string;
  openedAt: string;
  endedAt: string | null;
  endReason: string | null;
}

export function recentSessions(db: Db, teamId: number, limit = 50): SessionRow[] {
  return db.prepare(`SELECT id, sandbox_id AS sandboxId, opened_at AS openedAt, ended_at AS endedAt, end_reason AS endReason
    FROM sessions WHERE team_id = ? ORDER BY opened_at DESC LIMIT ?`).all(teamId, limit) as SessionRow[];
}

/** Sessions reaped (their sandbox found gone while they were open). */
export function reapedCount(db: Db, teamId: number): number {
  return (db.prepare("SELECT COUNT(*) AS n FROM sessions WHERE team_id = ? AND end_reason LIKE 'reaped%'").get(teamId) as { n: number }).n;
}

/** Whether a session on this sandbox (or agent) is open: someone is using it now. */
export function sessionOpenOn(db: Db, sandboxId: string): boolean {
  return Boolean(db.prepare('SELECT 1 FROM sessions WHERE sandbox_id = ? AND ended_at IS NULL LIMIT 1').get(sandboxId));
}
