import fs from 'fs';
import path from 'path';
import type { SandboxUser } from './sandbox-user';

/**
 * A local sandbox's own folder, and everything its programs keep: the home,
 * the XDG config, data, cache and state folders under it, a temp folder, and
 * the runtime folder its buses listen in. Made at connect, from the project's
 * seed when there is one; reset to that seed between scenarios of a reused
 * sandbox; removed when the sandbox stops. Programs that remember their last
 * session (in the home or in dconf, which keeps its database there) start
 * fresh in every sandbox.
 *
 *   <root>/home   HOME, with .config, .local/share, .cache and .local/state
 *   <root>/tmp    TMPDIR
 *   <root>/browsers  the browsers' profiles: a reset leaves the kept browser's
 *   <root>/run    XDG_RUNTIME_DIR: the session bus's socket
 *   <root>/old-home-N, old-tmp-N  what a reset moved aside, while it is removed
 *
 * It lives in the system's temp folder, not the state folder: a socket's path
 * must stay short, and the sandbox's user must be able to reach it.
 */
export class SandboxFolder {
  readonly home: string;
  readonly tmp: string;
  /** Browser profiles; a reset leaves this folder alone, since the browser kept across scenarios still uses its profile. */
  readonly browsers: string;
  readonly run: string;
  private resets = 0;

  constructor(
    readonly root: string,
    /** A folder whose contents every new home starts with (the `sandboxHome` option); null for an empty home. */
    private readonly seed: string | null,
    /** Who owns it all: the sandbox's user; null where programs run as the agent's own user. */
    private readonly owner: SandboxUser | null,
  ) {
    this.home = path.join(root, 'home');
    this.tmp = path.join(root, 'tmp');
    this.run = path.join(root, 'run');
    this.browsers = path.join(root, 'browsers');
  }

  create(): void {
    fs.mkdirSync(this.root, { recursive: true, mode: 0o700 });
    this.own(this.root);
    for (const dir of [this.run, this.tmp, this.browsers]) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.own(dir);
    }
    this.makeHome();
  }

  /**
   * Back to the seed, once the scenario's programs have ended. The browser
   * kept across scenarios still runs, and may write into the home (a crash
   * reports folder, a font cache) while it is removed: so the old home is
   * first moved aside in one step, and a new one made, before the old one
   * is removed (the temp folder too). What a late writer puts in the old one goes with the folder
   * when the sandbox stops.
   */
  reset(): void {
    const n = ++this.resets;
    const oldHome = this.moveAside(this.home, `old-home-${n}`);
    this.makeHome();
    const oldTmp = this.moveAside(this.tmp, `old-tmp-${n}`);
    fs.mkdirSync(this.tmp, { mode: 0o700 });
    this.own(this.tmp);
    for (const old of [oldHome, oldTmp]) {
      try {
        fs.rmSync(old, { recursive: true, force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
      }
    }
  }

  private moveAside(dir: string, name: string): string {
    const aside = path.join(this.root, name);
    fs.renameSync(dir, aside);
    return aside;
  }

  remove(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  /** The variables that send programs' files here, set whatever the user's own environment says. */
  environment(): Record<string, string> {
    const env: Record<string, string> = {
      HOME: this.home,
      XDG_CONFIG_HOME: path.join(this.home, '.config'),
      XDG_DATA_HOME: path.join(this.home, '.local', 'share'),
      XDG_CACHE_HOME: path.join(this.home, '.cache'),
      XDG_STATE_HOME: path.join(this.home, '.local', 'state'),
      XDG_RUNTIME_DIR: this.run,
      TMPDIR: this.tmp,
    };
    if (this.owner) Object.assign(env, { USER: this.owner.name, LOGNAME: this.owner.name, SHELL: '/bin/sh' });
    return env;
  }

  private makeHome(): void {
    fs.mkdirSync(this.home, { recursive: true, mode: 0o700 });
    if (this.seed) fs.cpSync(this.seed, this.home, { recursive: true, force: true, verbatimSymlinks: true });
    const env = this.environment();
    for (const name of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME']) fs.mkdirSync(env[name], { recursive: true, mode: 0o700 });
    this.ownTree(this.home);
  }

  private own(target: string): void {
    if (this.owner) fs.lchownSync(target, this.owner.uid, this.owner.gid);
  }

  private ownTree(dir: string): void {
    if (!this.owner) return;
    this.own(dir);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) this.ownTree(full);
      else this.own(full);
    }
  }
}
