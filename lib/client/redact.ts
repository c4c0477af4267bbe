/**
 * Keeps secrets out of everything Glance writes: log lines, events, errors,
 * file names. The API key, agent tokens and every value typed as a secret are
 * registered here and replaced by `****` wherever they appear.
 */
export const MASK = '****';

export class Redactor {
  private readonly secrets = new Set<string>();

  add(secret: string | undefined | null): void {
    // Very short values would mask ordinary words; they are still never logged as typed text.
    if (secret && secret.length >= 3) this.secrets.add(secret);
  }

  text(input: string): string {
    let output = input;
    for (const secret of this.secrets) output = output.split(secret).join(MASK);
    return output;
  }

  /** A deep copy of `value` with every registered secret masked in its strings. */
  value<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.value(v)) as T;
    if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(v)])) as T;
    }
    return value;
  }

  /** The same error with secrets masked in its message and stack. */
  error<E>(error: E): E {
    if (error instanceof Error) {
      error.message = this.text(error.message);
      if (error.stack) error.stack = this.text(error.stack);
    }
    return error;
  }
}
