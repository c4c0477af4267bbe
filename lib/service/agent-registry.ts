import fs from 'fs';
import path from 'path';
import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import type { Db } from '../store/db';
import type { Os } from '../config/options';

/**
 * Self-hosted agents registered on the team server (`glance agents add`).
 * Their tokens are sealed with AES-256-GCM under a key kept in a file of its
 * own (`agent-key`, mode 0600) beside the database, so a copy of the database
 * alone does not give the agents away.
 */
export interface RegisteredAgent {
  agentId: string;
  host: string;
  port: number;
  /** The team that may use it; null for every team of the server. */
  teamId: number | null;
  token: string;
  /** The desktop it serves. */
  os: Os;
}

function sealingKey(stateDir: string): Buffer {
  const file = path.join(stateDir, 'agent-key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    try {
      fs.writeFileSync(file, randomBytes(32), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return fs.readFileSync(file);
}

function seal(stateDir: string, text: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(stateDir), iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

function unseal(stateDir: string, sealed: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(stateDir), sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
}

/** Registers (or updates) an agent by its id and address. */
export function registerAgent(db: Db, stateDir: string, agent: RegisteredAgent): void {
  db.prepare(`INSERT INTO agents (agent_id, host, port, team_id, token_sealed, added_at, os) VALUES (?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (agent_id) DO UPDATE SET host = excluded.host, port = excluded.port, team_id = excluded.team_id, token_sealed = excluded.token_sealed, os = excluded.os`)
    .run(agent.agentId, agent.host, agent.port, agent.teamId, seal(stateDir, agent.token), new Date().toISOString(), agent.os);
}

type Row = { agent_id: string; host: string; port: number; team_id: number | null; token_sealed: Buffer; os: Os };
const open = (stateDir: string, row: Row | undefined): RegisteredAgent | null =>
  row ? { agentId: row.agent_id, host: row.host, port: row.port, teamId: row.team_id, token: unseal(stateDir, row.token_sealed), os: row.os } : null;

export function agentAt(db: Db, stateDir: string, host: string, port: number): RegisteredAgent | null {
  return open(stateDir, db.prepare('SELECT * FROM agents WHERE host = ? AND port = ?').get(host, port) as Row | undefined);
}

export function agentById(db: Db, stateDir: string, agentId: string): RegisteredAgent | null {
  return open(stateDir, db.prepare('SELECT * FROM agents WHERE agent_id = ?').get(agentId) as Row | undefined);
}

/** Registered agents, without their tokens. */
export function listAgents(db: Db): Omit<RegisteredAgent, 'token'>[] {
  return (db.prepare('SELECT agent_id, host, port, team_id, os FROM agents ORDER BY host, port').all() as Row[])
    .map((r) => ({ agentId: r.agent_id, host: r.host, port: r.port, teamId: r.team_id, os: r.os }));
}

/** The agents of one desktop that a team may use: its own first, then those of every team. */
export function agentsFor(db: Db, stateDir: string, teamId: number, os: Os): RegisteredAgent[] {
  const rows = db.prepare('SELECT * FROM agents WHERE os = ? AND (team_id = ? OR team_id IS NULL) ORDER BY team_id IS NULL, host, port').all(os, teamId) as Row[];
  return rows.map((row) => open(stateDir, row)!);
}
