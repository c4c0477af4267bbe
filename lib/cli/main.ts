import { initCommand } from './init';
import { agentCommand } from './agent';
import { sandboxesCommand } from './sandboxes';
import { locateCommand } from './locate';
import { cacheCommand } from './cache';
import { reportCommand } from './report';
import { a11yCommand } from './a11y';
import { statsCommand } from './stats';
import { serveCommand } from './serve';
import { keysCommand, teamsCommand } from './teams';
import { agentsCommand } from './agents';
import { imageCommand } from './image';
import { recordCommand, RecordHooks } from './record';

const USAGE = `Usage: glance <command>

  init                                   create the state database and an API key (written to .env)
  agent --listen HOST:PORT [--token T] [--driver x11|nut]
                                         serve this machine's desktop to Glance clients (token also from GLANCE_AGENT_TOKEN;
                                         the nut driver runs on Windows, macOS and X11, and is the default off Linux)
  sandboxes [list | stop <id> | stop --all | prune]
                                         show or stop local sandboxes
  locate <screen.png> "<description>" [--type text|image|ui|any] [--zoom] [--verify] [--json] [--overlay out.png]
  locate "<description>" [--sandbox ID] [--engine auto|a11y|ocr|vision]
                                         locate on the screen of a running sandbox
  locate --batch <in.jsonl>              locate on screenshots without a sandbox
  a11y dump [--sandbox ID] [--json]      the accessibility tree a running sandbox shows Glance
  cache [list [--key K] | show <id> | clear [--key K]]
                                         the element cache in .glance/glance.db
  report [--json reports/json] [--out reports]
                                         write the HTML report of a Cucumber run
  report --merge PATH... [--out reports] [--run ID]
                                         one report of a run's shards (message files, JSON files or reports folders)
  report --publish [--json reports/json] [--run ID]
                                         send a run's results and evidence to the team server
  stats [--runs N] [--json]              usage analytics of the last runs: commands, locate time, cache hits, slowest descriptions
  serve [--listen HOST:PORT] [--state DIR] [--tls-cert F --tls-key F] [--token-ttl 1h] [--retain-days 30] [--trust-proxy] [--backend local|docker|kubernetes]
                                         the team server: the Service over HTTP for clients with apiRoot
  teams add NAME [--sandboxes N] | teams list [--state DIR]
                                         the team server's teams and their sandbox limits
  keys create|list --team NAME | keys revoke ID --team NAME [--state DIR]
                                         a team's API keys (shown once, stored hashed)
  agents add HOST:PORT --token T [--os linux|windows] [--team NAME] | agents list [--state DIR]
                                         agents of your own machines, reached through the team server;
                                         connect({ os: 'windows' }) goes to a team's windows agents
  record (--url URL | --launch COMMAND | --from FILE:LINE) [--feature FILE] [--scenario NAME] [--save-secrets] [--no-verify] [--resolution WxH]
                                         record what you do in a sandbox's live preview as a scenario: Ctrl+C stops, replays it
                                         in a fresh sandbox, and writes it into the feature file (default features/recorded.feature);
                                         --from replays a scenario up to a step and records on from there
  image build [--tag T] [--base IMAGE] [--node PATH]
                                         the sandbox image for the docker backend (deploy/Dockerfile)
`;

/** Dispatches `glance <command>`; resolves to the exit code. `hooks` lends what lives outside lib/ (the step registry). */
export async function main(argv: string[], hooks: RecordHooks = {}): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'init': return initCommand(rest);
    case 'agent': return agentCommand(rest);
    case 'sandboxes': return sandboxesCommand(rest);
    case 'locate': return locateCommand(rest);
    case 'cache': return cacheCommand(rest);
    case 'report': return reportCommand(rest);
    case 'a11y': return a11yCommand(rest);
    case 'stats': return statsCommand(rest);
    case 'serve': return serveCommand(rest);
    case 'teams': return teamsCommand(rest);
    case 'keys': return keysCommand(rest);
    case 'agents': return agentsCommand(rest);
    case 'image': return imageCommand(rest);
    case 'record': return recordCommand(rest, hooks);
    case undefined: case 'help': case '--help': case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`glance: unknown command '${command}'.\n\n${USAGE}`);
      return 2;
  }
}
