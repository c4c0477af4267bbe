import { initCommand } from './init';
import { agentCommand } from './agent';
import { sandboxesCommand } from './sandboxes';

const USAGE = `Usage: glance <command>

  init                                   create the state database and an API key (written to .env)
  agent --listen HOST:PORT [--token T]   serve this machine's display to Glance clients (token also from GLANCE_AGENT_TOKEN)
  sandboxes [list | stop <id> | stop --all | prune]
                                         show or stop local sandboxes
`;

/** Dispatches `glance <command>`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'init': return initCommand(rest);
    case 'agent': return agentCommand(rest);
    case 'sandboxes': return sandboxesCommand(rest);
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`glance: unknown command '${command}'.\n\n${USAGE}`);
      return 2;
  }
}

/** `--name value` flags, plus bare words. */
export function parseFlags(args: string[]): { flags: Record<string, string | true>; words: string[] } {
  const flags: Record<string, string | true> = {};
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) words.push(arg);
    else if (args[i + 1] !== undefined && !args[i + 1].startsWith('--')) flags[arg.slice(2)] = args[++i];
    else flags[arg.slice(2)] = true;
  }
  return { flags, words };
}

export function stateDir(): string {
  return process.env.GLANCE_STATE_DIR || '.glance';
}
