/**
 * Glance's error types. Every message names the input at fault, the value
 * that was given, and what to do instead.
 */
export class GlanceError extends Error {
  /** A stable machine-readable code, e.g. `GLANCE_INVALID_OPTION`. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

/** An option or argument that fails validation. */
export class InvalidOptionError extends GlanceError {
  readonly option: string;
  constructor(option: string, message: string) {
    super('GLANCE_INVALID_OPTION', message);
    this.option = option;
  }
}

/** The API key is missing, unknown, or a token was rejected. */
export class AuthError extends GlanceError {
  constructor(message: string) {
    super('GLANCE_AUTH', message);
  }
}

/** A method was called in a state that does not allow it. */
export class StateError extends GlanceError {
  constructor(message: string) {
    super('GLANCE_STATE', message);
  }
}

/** A sandbox could not be started, rejoined, or has gone away. */
export class SandboxError extends GlanceError {
  constructor(message: string) {
    super('GLANCE_SANDBOX', message);
  }
}

/** The team is at its limit of sandboxes, and no slot came free while connect() waited in the team server's queue. */
export class QuotaError extends GlanceError {
  constructor(message: string) {
    super('GLANCE_QUOTA', message);
  }
}

/** A command run in the sandbox (exec) failed or timed out. */
export class ExecError extends GlanceError {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  constructor(message: string, exitCode: number | null, stdout: string, stderr: string) {
    super('GLANCE_EXEC', message);
    this.exitCode = exitCode;
    this.stdout = stdout;
    this.stderr = stderr;
  }
}

/** The vision model could not be used: a bad key or model name (at once), or failures that outlasted the retries. */
export class VisionModelError extends GlanceError {
  /** `fatal`: retrying cannot help (a bad key, an unknown model, a request the server refuses). `status`: the HTTP status, when there was one. */
  constructor(message: string, readonly fatal: boolean, readonly status: number | null) {
    super('GLANCE_VISION_MODEL', message);
  }
}

/** Something Glance can only judge with a vision model, asked without one configured. */
export class VisionModelRequiredError extends GlanceError {
  constructor(message: string) {
    super('GLANCE_VISION_MODEL_REQUIRED', message);
  }
}

/** `assert()` judged the statement false; `reason` says what the screen shows instead. */
export class AssertionError extends GlanceError {
  readonly statement: string;
  readonly reason: string;
  constructor(statement: string, reason: string) {
    super('GLANCE_ASSERTION', `Assertion failed: '${statement}': ${reason}`);
    this.statement = statement;
    this.reason = reason;
  }
}

/** A Service call for a session that is not open: the same words from every transport. */
export function noOpenSession(id: string): StateError {
  return new StateError(`No open session '${id}': it ended (disconnect) or never began; connect again.`);
}
