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

/** A `HOST:PORT` address (IPv6 hosts in brackets), or an error naming the flag, the value and an example. */
export function hostPort(flag: string, value: string, example: string): { host: string; port: number } {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(value);
  if (!match || Number(match[2]) > 65535) throw new InvalidOptionError(flag, `${flag} takes HOST:PORT, e.g. ${example}; got '${value}'.`);
  return { host: match[1], port: Number(match[2]) };
}
