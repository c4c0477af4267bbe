import { InvalidOptionError } from '../config/errors';
import { AgentClient } from '../sandbox/agent-client';
import { listAgents, registerAgent } from '../service/agent-registry';
import { listTeams, requireTeam } from '../service/teams';
import { hostPort, knownFlags, parseFlags } from './flags';
import { stateFolder, withState } from './teams';

const USAGE = 'glance agents add HOST:PORT --token T [--team NAME] [--state DIR] | glance agents list [--state DIR]';

/**
 * `glance agents add HOST:PORT --token T [--team NAME]`: registers an agent of
 * your own on the team server (checked by asking it first), so that clients
 * connect with `ip: 'HOST:PORT'` without its token; `glance agents list`.
 */
export async function agentsCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  const [action, address] = words;
  if (action === 'add') {
    knownFlags('agents add', flags, ['token', 'team', 'state']);
    const token = typeof flags.token === 'string' ? flags.token : process.env.GLANCE_AGENT_TOKEN;
    if (!token) throw new InvalidOptionError('token', `glance agents add needs the agent's token: --token T (the --token given to 'glance agent'), or GLANCE_AGENT_TOKEN.`);
    const { host, port } = hostPort("the agent's address", address ?? '', '10.0.0.5:4780');
    const agent = new AgentClient({ host, port, token });
    const health = await agent.health().catch((error: Error) => {
      throw new InvalidOptionError('address', `No Glance agent answered at ${host}:${port} with that token (${error.message}). Start it with 'glance agent --listen ${host}:${port} --token T'.`);
    }).finally(() => agent.close());
    const stateDir = stateFolder(flags);
    const team = withState(flags, (db) => {
      const chosen = typeof flags.team === 'string' ? requireTeam(db, flags.team) : null;
      registerAgent(db, stateDir, { agentId: health.id, host, port, teamId: chosen?.id ?? null, token });
      return chosen;
    });
    console.log(`Registered agent ${health.id} at ${host}:${port} (${health.width}x${health.height}) for ${team ? `team ${team.name}` : 'every team'}. Clients connect with ip: '${host}:${port}'.`);
    return 0;
  }
  if (action === 'list') {
    knownFlags('agents list', flags, ['state']);
    withState(flags, (db) => {
      const teams = new Map(listTeams(db).map((t) => [t.id, t.name]));
      const agents = listAgents(db);
      if (!agents.length) console.log("No agents registered. Add one with 'glance agents add HOST:PORT --token T'.");
      for (const a of agents) console.log(`${`${a.host}:${a.port}`.padEnd(24)} ${a.agentId.padEnd(28)} ${a.teamId === null ? 'every team' : `team ${teams.get(a.teamId)}`}`);
    });
    return 0;
  }
  throw new InvalidOptionError('action', `glance agents takes 'add' or 'list', got '${action ?? ''}': ${USAGE}`);
}
