import {
  AssertionError, AuthError, ExecError, GlanceError, InvalidOptionError, QuotaError, SandboxError, StateError, VisionModelError, VisionModelRequiredError,
} from '../config/errors';
import { AgentRequestError } from '../sandbox/agent-client';

/**
 * Errors across the team server's wire: the server sends the error's class
 * name, code, message and fields; the client raises the same class with the
 * same message, so that a client against the server fails exactly as the
 * embedded Service would.
 */
export interface WireError {
  name: string;
  code: string | null;
  message: string;
  /** The fields of the classes that carry more than a message. */
  option?: string;
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
  statement?: string;
  reason?: string;
  fatal?: boolean;
  status?: number | null;
}

/** The HTTP status an error is sent with. */
export function statusOf(error: unknown): number {
  if (error instanceof InvalidOptionError) return 400;
  if (error instanceof AuthError) return 401;
  if (error instanceof QuotaError) return 429;
  if (error instanceof StateError || error instanceof SandboxError) return 409;
  if (error instanceof AgentRequestError) return error.status >= 400 && error.status < 500 ? error.status : 502;
  return 500;
}

export function toWire(error: unknown): WireError {
  const e = error instanceof Error ? error : new Error(String(error));
  const wire: WireError = { name: e.name, code: e instanceof GlanceError ? e.code : null, message: e.message };
  if (e instanceof InvalidOptionError) wire.option = e.option;
  if (e instanceof ExecError) Object.assign(wire, { exitCode: e.exitCode, stdout: e.stdout, stderr: e.stderr });
  if (e instanceof AssertionError) Object.assign(wire, { statement: e.statement, reason: e.reason });
  if (e instanceof VisionModelError) Object.assign(wire, { fatal: e.fatal, status: e.status });
  return wire;
}

/** The error the server sent, as the class it was raised as (a plain Error for classes the client does not share). */
export function fromWire(wire: WireError): Error {
  switch (wire.name) {
    case 'InvalidOptionError': return new InvalidOptionError(wire.option ?? 'unknown', wire.message);
    case 'AuthError': return new AuthError(wire.message);
    case 'StateError': return new StateError(wire.message);
    case 'SandboxError': return new SandboxError(wire.message);
    case 'QuotaError': return new QuotaError(wire.message);
    case 'ExecError': return new ExecError(wire.message, wire.exitCode ?? null, wire.stdout ?? '', wire.stderr ?? '');
    case 'AssertionError': return Object.assign(new AssertionError(wire.statement ?? '', wire.reason ?? ''), { message: wire.message });
    case 'VisionModelError': return new VisionModelError(wire.message, wire.fatal ?? false, wire.status ?? null);
    case 'VisionModelRequiredError': return new VisionModelRequiredError(wire.message);
    default: {
      const error = wire.code ? new GlanceError(wire.code, wire.message) : new Error(wire.message);
      if (wire.name) error.name = wire.name;
      return error;
    }
  }
}
