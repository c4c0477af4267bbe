import type { AgentEndpoint } from '../sandbox/agent-client';
import type { Os, Preview } from '../config/options';

/**
 * The Service: API-key auth, and creating, rejoining and attaching sandboxes.
 * Transport-neutral: LocalService runs in-process; a remote transport speaks
 * the same interface over HTTP.
 */
export interface SandboxSpec {
  os: Os;
  width: number;
  height: number;
  keepAlive: number;
  environment: Record<string, string>;
  preview: Preview;
  sandboxAmi?: string;
  sandboxInstance?: string;
}

/** The sandbox instance of interface spec 2.3, as `connect()` and `getInstance()` return it. */
export interface SandboxInstance {
  instanceId: string;
  ip: string;
  vncPort: number | null;
  os: Os;
  resolution: string;
  /** `local` for a sandbox on this machine, `ip` for an agent you run yourself. */
  provider: 'local' | 'ip';
  /** True when connect() joined a sandbox that was already running. */
  rejoined: boolean;
  display: string | null;
  agentPort: number;
  createdAt: string | null;
}

export interface SandboxSession {
  instance: SandboxInstance;
  /** How to reach the sandbox's agent; holds a secret, never logged. */
  agent: AgentEndpoint;
}

export interface AuthResult {
  token: string;
  expiresAt: string;
}

export interface Service {
  auth(apiKey: string): Promise<AuthResult>;
  createSandbox(token: string, spec: SandboxSpec): Promise<SandboxSession>;
  rejoinSandbox(token: string, sandboxId: string): Promise<SandboxSession>;
  /** The id recorded by the last successful connect, if any. */
  lastSandboxId(token: string): Promise<string | null>;
  attachSandbox(token: string, address: { host: string; port: number; agentToken: string }): Promise<SandboxSession>;
  close(): void;
}
