import type { SandboxRecord } from './registry';
import type { LocalSandboxSpec } from './local-provider';

/** Where sandboxes run: a supervisor process on this machine, or a Docker container. */
export type SandboxBackendName = 'local' | 'docker';

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
