import { InvalidOptionError } from './errors';
import { closest } from './closest';

/**
 * Small, declarative validators. Each takes the option's dotted path and the
 * value, and throws an InvalidOptionError that names both and what is allowed.
 */
export type Check = (path: string, value: unknown) => void;

export function show(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'function') return 'a function';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function fail(path: string, value: unknown, allowed: string): never {
  throw new InvalidOptionError(path, `Invalid option '${path}': got ${show(value)}; expected ${allowed}.`);
}

export const isBoolean: Check = (path, value) => {
  if (typeof value !== 'boolean') fail(path, value, 'true or false');
};

export const isString: Check = (path, value) => {
  if (typeof value !== 'string' || value.length === 0) fail(path, value, 'a non-empty string');
};

export function isOneOf(values: readonly string[]): Check {
  return (path, value) => {
    if (typeof value === 'string' && values.includes(value)) return;
    const hint = typeof value === 'string' ? closest(value, values) : undefined;
    fail(path, value, `one of ${values.map((v) => `'${v}'`).join(', ')}${hint ? ` (did you mean '${hint}'?)` : ''}`);
  };
}

export function isNumberIn(min: number, max: number, extra: readonly number[] = []): Check {
  return (path, value) => {
    if (typeof value === 'number' && Number.isFinite(value) && (extra.includes(value) || (value >= min && value <= max))) return;
    const also = extra.length ? `, or ${extra.join(' or ')}` : '';
    fail(path, value, `a number from ${min} to ${max}${also}`);
  };
}

export function isIntegerAtLeast(min: number): Check {
  return (path, value) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) fail(path, value, `a whole number >= ${min}`);
  };
}

/** Width x height, each 200..7680, written `1366x768`. */
export const isResolution: Check = (path, value) => {
  const match = typeof value === 'string' ? /^(\d{3,4})x(\d{3,4})$/.exec(value) : null;
  const ok = match && [match[1], match[2]].every((n) => Number(n) >= 200 && Number(n) <= 7680);
  if (!ok) fail(path, value, "'<width>x<height>' with each side 200-7680, e.g. '1366x768'");
};

export const isStringRecord: Check = (path, value) => {
  const ok = value !== null && typeof value === 'object' && !Array.isArray(value) &&
    Object.values(value as object).every((v) => typeof v === 'string');
  if (!ok) fail(path, value, 'an object of string values, e.g. { LANG: "en_US.UTF-8" }');
};

export function either(description: string, ...checks: Check[]): Check {
  return (path, value) => {
    for (const check of checks) {
      try {
        check(path, value);
        return;
      } catch {
        /* try the next shape */
      }
    }
    fail(path, value, description);
  };
}

/** An object whose keys are each checked; unknown keys are rejected with the nearest known name. */
export type Shape = { [key: string]: Check | Shape };

export function isObjectOf(shape: Shape): Check {
  return (path, value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(path, value, 'an object');
    checkShape(shape, value as Record<string, unknown>, `${path}.`);
  };
}

/** `true`, `false`, or an object of the given shape. */
export function booleanOr(shape: Shape): Check {
  const object = isObjectOf(shape);
  return (path, value) => (typeof value === 'boolean' ? undefined : object(path, value));
}

export function checkShape(shape: Shape, input: Record<string, unknown>, prefix = ''): void {
  const known = Object.keys(shape);
  for (const [key, value] of Object.entries(input)) {
    const rule = shape[key];
    if (!rule) {
      const hint = closest(key, known);
      throw new InvalidOptionError(
        `${prefix}${key}`,
        `Unknown option '${prefix}${key}'.${hint ? ` Did you mean '${prefix}${hint}'?` : ''} Known options: ${known.join(', ')}.`,
      );
    }
    if (value === undefined) continue;
    if (typeof rule === 'function') rule(`${prefix}${key}`, value);
    else isObjectOf(rule)(`${prefix}${key}`, value);
  }
}
