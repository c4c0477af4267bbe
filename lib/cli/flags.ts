import { InvalidOptionError } from '../config/errors';

/** `--name value` flags, plus bare words; the named `switches` never take a value. */
export function parseFlags(args: string[], switches: string[] = []): { flags: Record<string, string | true>; words: string[] } {
  const flags: Record<string, string | true> = {};
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const name = arg.slice(2);
    if (!arg.startsWith('--')) words.push(arg);
    else if (!switches.includes(name) && args[i + 1] !== undefined && !args[i + 1].startsWith('--')) flags[name] = args[++i];
    else flags[name] = true;
  }
  return { flags, words };
}

/** Fails on a flag the command does not take, naming the ones it does. */
export function knownFlags(command: string, flags: Record<string, string | true>, known: string[]): void {
  const unknown = Object.keys(flags).filter((f) => !known.includes(f));
  if (unknown.length) {
    throw new InvalidOptionError(unknown[0], `glance ${command} does not take --${unknown[0]}; it takes ${known.map((k) => `--${k}`).join(', ')}.`);
  }
}
