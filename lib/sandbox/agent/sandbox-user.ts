import fs from 'fs';
import { spawnSync } from 'child_process';

/**
 * Who runs the programs of a sandbox. On a person's desktop programs run as
 * an ordinary user; run as root, GTK programs show a "you are using the root
 * account" bar no user ever sees, and some behave differently. So when Glance
 * runs as root, one unprivileged user runs what sandboxes start, and file
 * permissions keep it inside its sandbox's folder.
 */
export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

export const SANDBOX_USER_NAME = 'glance-sandbox';

/** The user from /etc/passwd, or null when there is none. */
export function lookupUser(name: string): SandboxUser | null {
  let passwd: string;
  try {
    passwd = fs.readFileSync('/etc/passwd', 'utf8');
  } catch {
    return null;
  }
  for (const line of passwd.split('\n')) {
    const [user, , uid, gid] = line.split(':');
    if (user === name && /^\d+$/.test(uid) && /^\d+$/.test(gid)) return { name, uid: Number(uid), gid: Number(gid) };
  }
  return null;
}

/**
 * The user that runs the sandbox's programs: null where they run as the
 * agent's own user (Glance is not root, or `runAsRoot` asks for root). As
 * root, the sandbox user is created when it is missing (set-up creates it
 * too; this covers the first connect after an npm install).
 */
export function sandboxUser(runAsRoot: boolean): SandboxUser | null {
  if (runAsRoot || typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const existing = lookupUser(SANDBOX_USER_NAME);
  if (existing) return existing;
  const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', SANDBOX_USER_NAME], { encoding: 'utf8', timeout: 10_000 });
  // Two sandboxes starting at once race to create it: the loser finds it made.
  const created = lookupUser(SANDBOX_USER_NAME);
  if (created) return created;
  const why = made.error?.message ?? (made.stderr.trim() || `exit code ${made.status}`);
  throw new Error(`Could not create the user '${SANDBOX_USER_NAME}' that runs sandbox programs (useradd: ${why}). Create it with 'useradd --system --user-group --no-create-home ${SANDBOX_USER_NAME}', or set runAsRoot: true (GLANCE_RUN_AS_ROOT=1) to run programs as root.`);
}

/**
 * Why `user` cannot read the file at `file` (a folder on the way it may not
 * enter, or the file it may not read), or null when it can. By the mode
 * bits, as the kernel checks them for an ordinary user.
 */
export function unreadableBy(user: SandboxUser, file: string): string | null {
  const allowed = (stat: fs.Stats, bit: number) =>
    (stat.uid === user.uid && (stat.mode & (bit << 6)) !== 0) || (stat.gid === user.gid && (stat.mode & (bit << 3)) !== 0) || (stat.mode & bit) !== 0;
  const parts = file.split('/').filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const at = `/${parts.slice(0, i + 1).join('/')}`;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(at);
    } catch {
      return null; // missing: the program says so itself
    }
    const last = i === parts.length - 1;
    if (!last && !allowed(stat, 1)) return `the folder ${at} is closed to it`;
    if (last && !allowed(stat, stat.isDirectory() ? 5 : 4)) return `${at} is not readable by others`;
  }
  return null;
}
