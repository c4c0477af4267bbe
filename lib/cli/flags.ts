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
