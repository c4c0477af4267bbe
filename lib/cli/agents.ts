import { InvalidOptionError } from '../config/errors';
import { OSES, Os } from '../config/options';
import { AgentClient } from '../sandbox/agent-client';
import { listAgents, registerAgent } from '../service/agent-registry';
import { listTeams, requireTeam } from '../service/teams';
import { hostPort, knownFlags, parseFlags } from './flags';
import { stateFolder, withState } from './teams';

const USAGE = 'glance agents add HOST:PORT --token T [--os linux|windows] [--team NAME] [--state DIR] | glance agents list [--state DIR]';

/**
 * `glance agents add HOST:PORT --token T [--team NAME]`: registers an agent of
 * your own on the team server (checked by asking it first), so that clients
 * connect with `ip: 'HOST:PORT'` without its token; `glance agents list`.
 */
export async function agentsCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  const [action, address] = words;
  if (action === 'add') {
    knownFlags('agents add', flags, ['token', 'team', 'state', 'os']);
    const os = flags.os === undefined ? undefined : String(flags.os);
    if (os !== undefined && !OSES.includes(os as Os)) throw new InvalidOptionError('os', `--os takes ${OSES.map((o) => `'${o}'`).join(' or ')}: the desktop the agent serves; got '${os}'.`);
    const token = typeof flags.token === 'string' ? flags.token : process.env.GLANCE_AGENT_TOKEN;
    if (!token) throw new InvalidOptionError('token', `glance agents add needs the agent's token: --token T (the --token given to 'glance agent'), or GLANCE_AGENT_TOKEN.`);
    const { host, port } = hostPort("the agent's address", address ?? '', '10.0.0.5:4780');
    const agent = new AgentClient({ host, port, token });
    const health = await agent.health().catch((error: Error) => {
      throw new InvalidOptionError('address', `No Glance agent answered at ${host}:${port} with that token (${error.message}). Start it with 'glance agent --listen ${host}:${port} --token T'.`);
    }).finally(() => agent.close());
    // The agent says which desktop it serves; --os, when given, must agree with it.
    const served = health.os ?? 'linux';
    if (served === 'macos') throw new InvalidOptionError('os', `The agent at ${host}:${port} serves a macOS desktop, which connect({ os }) does not name: clients reach it with ip: '${host}:${port}' and GLANCE_AGENT_TOKEN.`);
    if (os !== undefined && os !== served) throw new InvalidOptionError('os', `The agent at ${host}:${port} serves a ${served} desktop, not ${os}. Register it with --os ${served}, or give the address of a ${os} machine's agent.`);
    const stateDir = stateFolder(flags);
    const team = withState(flags, (db) => {
      const chosen = typeof flags.team === 'string' ? requireTeam(db, flags.team) : null;
      registerAgent(db, stateDir, { agentId: health.id, host, port, teamId: chosen?.id ?? null, token, os: served });
      return chosen;
    });
    const connectWith = served === 'linux' ? `ip: '${host}:${port}'` : `os: '${served}' (or ip: '${host}:${port}')`;
    console.log(`Registered ${served} agent ${health.id} at ${host}:${port} (${health.width}x${health.height}) for ${team ? `team ${team.name}` : 'every team'}. Clients connect with ${connectWith}.`);
    return 0;
  }
  if (action === 'list') {
    knownFlags('agents list', flags, ['state']);
    withState(flags, (db) => {
      const teams = new Map(listTeams(db).map((t) => [t.id, t.name]));
      const agents = listAgents(db);
      if (!agents.length) console.log("No agents registered. Add one with 'glance agents add HOST:PORT --token T'.");
      for (const a of agents) console.log(`${`${a.host}:${a.port}`.padEnd(24)} ${a.os.padEnd(8)} ${a.agentId.padEnd(28)} ${a.teamId === null ? 'every team' : `team ${teams.get(a.teamId)}`}`);
    });
    return 0;
  }
  throw new InvalidOptionError('action', `glance agents takes 'add' or 'list', got '${action ?? ''}': ${USAGE}`);
}
