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
