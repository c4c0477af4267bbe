import fs from 'fs';
import path from 'path';
import dbus, { Message } from 'dbus-next';
import { endingWithSupervisor, ProcessGroup } from '../processes';
import { asUser } from '../program-space';
import type { SandboxUser } from '../sandbox-user';
import { sleep } from '../../../util/wait';

/**
 * The buses a sandbox's accessibility tree travels on: a D-Bus session bus
 * of its own, and AT-SPI's bus launcher, which starts the accessibility bus
 * and (through it) the registry. Programs started before the bus, or
 * without it, publish nothing, so the supervisor starts these first.
 */

const LAUNCHERS = ['/usr/libexec/at-spi-bus-launcher', '/usr/lib/at-spi2-core/at-spi-bus-launcher', '/usr/lib/at-spi2/at-spi-bus-launcher'];
const READY_TIMEOUT_MS = 5_000;

/**
 * What turns accessibility on in the programs of a sandbox. GTK 3 is on
 * with the bus; GTK 2 needs GNOME_ACCESSIBILITY; Qt asks for the bus only
 * when a screen reader runs, unless told always; Chromium and Electron read
 * ACCESSIBILITY_ENABLED (and take --force-renderer-accessibility).
 */
export const ACCESSIBILITY_ENV: Readonly<Record<string, string>> = {
  GNOME_ACCESSIBILITY: '1',
  QT_ACCESSIBILITY: '1',
  QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
  ACCESSIBILITY_ENABLED: '1',
};

export interface DesktopBus {
  /** The session bus address, for DBUS_SESSION_BUS_ADDRESS. */
  address: string;
  /** The session bus's process: the services it starts on demand (dconf) are its children. */
  pid: number;
  /**
   * Starts the accessibility bus launcher on `display`; resolves true once
   * it serves, false when it did not come up in time. Only once another
   * client holds the display: the launcher's brief connection would
   * otherwise be the X server's last, and the server resets when that closes.
   */
  startAccessibility(display: string): Promise<boolean>;
}

/**
 * The session bus's configuration: the system's session bus, which serves
 * the user it runs as, and root too, so that the agent reads the tree of
 * a bus that runs as the sandbox's user.
 */
function sessionBusConfig(runtimeDir: string): string {
  const file = path.join(runtimeDir, 'session-bus.conf');
  fs.writeFileSync(file, `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <include>/usr/share/dbus-1/session.conf</include>
  <policy context="default"><allow user="root"/></policy>
</busconfig>
`, { mode: 0o644 });
  return file;
}

/**
 * Starts a session bus listening in `runtimeDir` (the sandbox's private
 * XDG_RUNTIME_DIR), as `user`, with the sandbox's home: the services it
 * starts on demand, dconf among them, keep their state there. Its process
 * stays in the foreground, in its own process group, so that stopping the
 * sandbox ends it and everything it activated.
 */
function startSessionBus(processes: ProcessGroup, env: NodeJS.ProcessEnv, runtimeDir: string, log: number, user: SandboxUser | null): Promise<{ address: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const args = ['--nofork', `--config-file=${sessionBusConfig(runtimeDir)}`, `--address=unix:path=${runtimeDir}/bus`, '--print-address=1'];
    const daemon = processes.spawn(...endingWithSupervisor('dbus-daemon', args), {
      env, cwd: '/', stdio: ['ignore', 'pipe', log], ...asUser(user),
    });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`dbus-daemon printed no address within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
    daemon.stdout!.setEncoding('utf8');
    daemon.stdout!.on('data', (chunk: string) => {
      output += chunk;
      if (!output.includes('\n')) return;
      clearTimeout(timer);
      daemon.stdout!.destroy();
      resolve({ address: output.trim(), pid: daemon.pid! });
    });
    daemon.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`dbus-daemon could not start: ${e.message}. Install it with 'apt-get install dbus'.`));
    });
    daemon.once('exit', (code) => {
      clearTimeout(timer);
      // 127: setpriv found no dbus-daemon to run.
      reject(new Error(code === 127 ? 'dbus-daemon was not found. Install it with \'apt-get install dbus\'.' : `dbus-daemon exited with code ${code} before it was ready`));
    });
  });
}

/** Waits until the launcher owns org.a11y.Bus; asking for the name sooner would have the session bus start a second launcher. */
async function waitForLauncher(address: string, timeoutMs: number): Promise<boolean> {
  const bus = dbus.sessionBus({ busAddress: address });
  bus.on('error', () => undefined);
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      const reply = await Promise.race([
        bus.call(new Message({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'NameHasOwner', signature: 's', body: ['org.a11y.Bus'] })),
        sleep(Math.max(1, deadline - Date.now())).then(() => null),
      ]);
      if (reply?.body[0] === true) return true;
      await sleep(10);
    }
    return false;
  } catch {
    return false;
  } finally {
    bus.disconnect();
  }
}

/**
 * Starts the session bus. Null when the sandbox has to do without (no
 * dbus-daemon): the snapshot is then empty, and nothing else changes.
 */
export async function startDesktopBus(processes: ProcessGroup, env: NodeJS.ProcessEnv, runtimeDir: string, log: number, user: SandboxUser | null): Promise<DesktopBus | null> {
  let bus: { address: string; pid: number };
  try {
    bus = await startSessionBus(processes, { ...env, XDG_RUNTIME_DIR: runtimeDir }, runtimeDir, log, user);
  } catch (error) {
    fs.writeSync(log, `${new Date().toISOString()} no accessibility tree: ${(error as Error).message}\n`);
    return null;
  }
  const startAccessibility = async (display: string): Promise<boolean> => {
    const launcher = LAUNCHERS.find((candidate) => fs.existsSync(candidate));
    if (!launcher) {
      fs.writeSync(log, `${new Date().toISOString()} no accessibility tree: at-spi-bus-launcher was not found (looked at ${LAUNCHERS.join(', ')}). Install it with 'apt-get install at-spi2-core'.\n`);
      return false;
    }
    // --launch-immediately: the bus is there before the first program asks for it.
    processes.spawn(...endingWithSupervisor(launcher, ['--launch-immediately', '--a11y=1']), {
      env: { ...env, DISPLAY: display, DBUS_SESSION_BUS_ADDRESS: bus.address, XDG_RUNTIME_DIR: runtimeDir }, cwd: '/', stdio: ['ignore', log, log], ...asUser(user),
    });
    return waitForLauncher(bus.address, READY_TIMEOUT_MS);
  };
  return { ...bus, startAccessibility };
}
