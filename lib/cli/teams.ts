import { InvalidOptionError } from '../config/errors';
import { defaultStateDir } from '../config/state-dir';
import { createApiKey } from '../service/api-keys';
import { addTeam, listKeys, listTeams, requireTeam, revokeKey } from '../service/teams';
import { openDb, Db } from '../store/db';
import { knownFlags, parseFlags } from './flags';

/** The state folder the admin commands work on: --state, else GLANCE_STATE_DIR, else .glance. */
export function stateFolder(flags: Record<string, string | true>): string {
  const state = flags.state;
  if (state === true) throw new InvalidOptionError('state', '--state needs a folder, e.g. --state /var/lib/glance.');
  return state ?? defaultStateDir();
}

/** The admin commands work on a state folder directly: the server need not run. */
export function withState<T>(flags: Record<string, string | true>, work: (db: Db) => T): T {
  const db = openDb(stateFolder(flags));
  try {
    return work(db);
  } finally {
    db.close();
  }
}

const TEAMS_USAGE = 'glance teams add NAME [--sandboxes N] [--state DIR] | glance teams list [--state DIR]';

/** `glance teams add NAME [--sandboxes N]` and `glance teams list`. */
export async function teamsCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  const [action, name] = words;
  if (action === 'add') {
    knownFlags('teams add', flags, ['sandboxes', 'state']);
    if (!name) throw new InvalidOptionError('name', `glance teams add needs a team name: ${TEAMS_USAGE}`);
    const limit = flags.sandboxes === undefined ? null : Number(flags.sandboxes);
    const team = withState(flags, (db) => addTeam(db, name, limit));
    console.log(`Team ${team.name}: ${team.sandboxLimit === null ? 'no sandbox limit' : `at most ${team.sandboxLimit} sandbox(es) at once`}. Create a key with 'glance keys create --team ${team.name}'.`);
    return 0;
  }
  if (action === 'list') {
    knownFlags('teams list', flags, ['state']);
    const teams = withState(flags, (db) => listTeams(db));
    if (!teams.length) console.log("No teams yet. Add one with 'glance teams add NAME'.");
    for (const t of teams) console.log(`${t.name.padEnd(24)} sandboxes: ${t.sandboxLimit ?? 'no limit'}  keys: ${t.keys}`);
    return 0;
  }
  throw new InvalidOptionError('action', `glance teams takes 'add' or 'list', got '${action ?? ''}': ${TEAMS_USAGE}`);
}

const KEYS_USAGE = 'glance keys create|list --team NAME [--state DIR] | glance keys revoke ID --team NAME [--state DIR]';

/** `glance keys create|list|revoke --team NAME`: a new key is printed once, and only its hash is kept. */
export async function keysCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  const [action, which] = words;
  knownFlags(`keys ${action ?? ''}`.trim(), flags, ['team', 'state']);
  if (typeof flags.team !== 'string') throw new InvalidOptionError('team', `glance keys needs --team NAME: ${KEYS_USAGE}`);
  const teamName = flags.team;
  return withState(flags, (db) => {
    const team = requireTeam(db, teamName);
    if (action === 'create') {
      const { key } = createApiKey(db, team.name);
      console.log(`API key for team ${team.name} (shown once; store it as GLANCE_API_KEY):\n${key}`);
    } else if (action === 'list') {
      const keys = listKeys(db, team.id);
      if (!keys.length) console.log(`Team ${team.name} has no keys. Create one with 'glance keys create --team ${team.name}'.`);
      for (const k of keys) console.log(`${String(k.id).padStart(4)}  ${k.hint}  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`);
    } else if (action === 'revoke') {
      if (!which) throw new InvalidOptionError('key', `glance keys revoke needs the key's id (from 'glance keys list --team ${team.name}'): ${KEYS_USAGE}`);
      const key = revokeKey(db, team.id, which);
      console.log(`Revoked key ${key.id} (${key.hint}) of team ${team.name}; its tokens stop working at once.`);
    } else {
      throw new InvalidOptionError('action', `glance keys takes 'create', 'list' or 'revoke', got '${action ?? ''}': ${KEYS_USAGE}`);
    }
    return 0;
  });
}
