import { randomBytes } from 'crypto';
import { SandboxError } from '../config/errors';
import type { SandboxBackendName } from '../config/backends';
import { AgentClient } from './agent-client';
import type { SandboxRecord, SandboxRegistry } from './registry';
import type { LocalSandboxSpec } from './local-provider';
import type { SupervisorConfig } from './agent/main';


/**
 * A place sandboxes run. Each backend labels what it starts and takes the
 * engine's own record (the processes, the containers) as the truth of what
 * runs: the registry record is this machine's handle on a sandbox (its agent's
 * port and token), never a second list of slots.
 */
export interface SandboxBackend {
  /** Starts a sandbox; `owner.team` labels it with the team a team server started it for. */
  create(spec: LocalSandboxSpec, owner?: { team?: number }): Promise<SandboxRecord>;
  /** A running sandbox by id, or an error that says what became of it. */
  rejoin(id: string): Promise<SandboxRecord>;
  /** Whether it still runs, asked of the engine now; one that ended is recorded as stopped. */
  confirmAlive(id: string): Promise<boolean>;
  /** Resolves once a sandbox told to stop is gone, nothing of it left (bounded). */
  removed(id: string): Promise<void>;
  /** After a restart: ends what outlived its deadline, records what is gone, and returns the ids still running. */
  reconcile(): Promise<string[]>;
  /** Lets go of the engine (event streams, timers), so the process can exit. */
  close(): void;
}

/** A new sandbox's id and its agent's token. */
export function newSandboxIdentity(): { id: string; token: string } {
  return { id: `sbx-${randomBytes(6).toString('hex')}`, token: randomBytes(24).toString('base64url') };
}

/** What a sandbox's supervisor is told to start, wherever it runs. */
export function supervisorConfig(id: string, token: string, spec: LocalSandboxSpec, stateDir: string): SupervisorConfig {
  return {
    id, token, width: spec.width, height: spec.height, keepAlive: spec.keepAlive,
    stateDir, environment: spec.environment, vnc: spec.vnc, accessibility: spec.accessibility,
    homeSeed: spec.homeSeed ?? null, runAsRoot: spec.runAsRoot ?? false,
  };
}

const STOPPED_HINT = 'It cannot be rejoined; start a new one (newSandbox: true), and raise keepAlive if you need to rejoin later.';

/**
 * A known, running sandbox of one backend by id, once `confirm` (the
 * engine's word, then the agent's health) says it still runs; otherwise it
 * is recorded as stopped and the error says what became of it.
 */
export async function rejoinRecord(
  registry: SandboxRegistry, id: string, backend: SandboxBackendName,
  confirm: (record: SandboxRecord, agent: AgentClient) => Promise<void>,
  onGone: (record: SandboxRecord) => void = () => undefined,
): Promise<SandboxRecord> {
  const record = registry.read(id);
  if (!record || (record.backend ?? 'local') !== backend) {
    throw new SandboxError(`No ${backend === 'local' ? '' : `${backend} `}sandbox with id '${id}' is known in ${registry.dir}. Check the id, or connect with newSandbox: true to start a new one.`);
  }
  if (record.state === 'stopped') throw new SandboxError(`Sandbox '${id}' stopped at ${record.stoppedAt} (${record.stopReason}). ${STOPPED_HINT}`);
  const agent = new AgentClient({ host: record.host ?? '127.0.0.1', port: record.port, token: record.token });
  try {
    await confirm(record, agent);
  } catch (error) {
    onGone(record);
    registry.markStopped(id, `found dead: ${(error as Error).message}`);
    throw new SandboxError(`Sandbox '${id}' is gone (${(error as Error).message}). ${STOPPED_HINT}`);
  } finally {
    agent.close();
  }
  registry.setLast(id);
  return registry.read(id) ?? record;
}
