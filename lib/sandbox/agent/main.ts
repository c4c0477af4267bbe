/**
 * A local sandbox's supervisor process: makes the sandbox's own folder (home,
 * temp and runtime folders), starts Xvfb (first, since it is the slowest
 * part), a D-Bus session bus with AT-SPI's accessibility bus, a window
 * manager and optionally x11vnc, then serves the agent API until its lifetime
 * ends, and takes every child down with it. The buses, the window manager and
 * every program run as the sandbox's user (see sandbox-user.ts).
 *
 * Started detached by the local provider, which writes the config as one JSON
 * line on stdin (so the token is never on a command line) and reads one JSON
 * "ready" line back from stdout. In a container (the docker backend), the
 * config comes in GLANCE_SUPERVISOR_CONFIG instead.
 */
import fs from 'fs';
import net from 'net';
import path from 'path';
import { endingWithSupervisor, ProcessGroup } from './processes';
import { processIdentity } from '../process-identity';
import { removeOrphanedSandboxDirs, sandboxRuntimeDir } from '../runtime-dir';
import { markOwned } from '../owned-folders';
import { programEnvironment } from './program-env';
import { SandboxFolder } from './sandbox-folder';
import { unpackHomeSeed } from '../home-seed-archive';
import { InputRecording } from './input-recording';
import { recordingRoutes } from './recording-routes';
import { sandboxUser } from './sandbox-user';

export interface SupervisorConfig {
  id: string;
  token: string;
  width: number;
  height: number;
  keepAlive: number;
  stateDir: string;
  environment: Record<string, string>;
  vnc: boolean;
  /** Start the buses that carry the accessibility tree (default true). */
  accessibility?: boolean;
  /** A folder whose contents every new home starts with (the `sandboxHome` option). */
  homeSeed?: string | null;
  /** The seed folder itself, packed (home-seed-archive.ts), for a sandbox that does not share the client's files. */
  homeSeedArchive?: string;
  /** Run programs as root, as Glance itself, rather than as the sandbox's user (the `runAsRoot` option). */
  runAsRoot?: boolean;
  /** Where the agent listens (default: loopback, on a free port). A pod's agent listens on every address, at the port its pod declares. */
  listen?: { host: string; port: number };
}

/** The config: one JSON line on stdin, or (in a container, which has no one to write it) GLANCE_SUPERVISOR_CONFIG, removed before anything starts. */
function readConfig(): Promise<SupervisorConfig> {
  const fromEnvironment = process.env.GLANCE_SUPERVISOR_CONFIG;
  if (fromEnvironment) {
    delete process.env.GLANCE_SUPERVISOR_CONFIG;
    return Promise.resolve(JSON.parse(fromEnvironment));
  }
  return new Promise((resolve, reject) => {
    let input = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      input += chunk;
      const newline = input.indexOf('\n');
      if (newline >= 0) {
        process.stdin.pause();
        process.stdin.destroy();
        try { resolve(JSON.parse(input.slice(0, newline))); } catch (e) { reject(e); }
      }
    });
    process.stdin.on('end', () => reject(new Error('no config on stdin')));
  });
}

/** Starts Xvfb on a free display; Xvfb reports the number on fd 3 once it accepts connections. */
function startXvfb(processes: ProcessGroup, width: number, height: number, log: number): Promise<{ display: string; pid: number }> {
  return new Promise((resolve, reject) => {
    const xvfb = processes.spawn(...endingWithSupervisor('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-dpi', '96']), {
      stdio: ['ignore', log, log, 'pipe'],
    });
    let output = '';
    const pipe = xvfb.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    pipe.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('\n')) resolve({ display: `:${output.trim()}`, pid: xvfb.pid! });
    });
    const install = "Install it with 'apt-get install xvfb'.";
    xvfb.once('error', (e) => reject(new Error(`Xvfb could not start: ${e.message}. ${install}`)));
    // 127: setpriv found no Xvfb to run.
    xvfb.once('exit', (code) => reject(new Error(code === 127 ? `Xvfb was not found. ${install}` : `Xvfb exited with code ${code} before it was ready`)));
    setTimeout(() => reject(new Error('Xvfb did not report a display within 10 s')), 10_000).unref();
  });
}

const processes = new ProcessGroup();
/** The sandbox's own folder; removed when it stops. */
let folder: SandboxFolder | null = null;

async function main(): Promise<void> {
  const config = await readConfig();
  const workDir = path.join(config.stateDir, 'sandboxes', config.id);
  fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const log = fs.openSync(path.join(workDir, 'agent.log'), 'a');
  const xvfbReady = startXvfb(processes, config.width, config.height, log);
  const user = sandboxUser(config.runAsRoot === true);
  const homeSeed = config.homeSeedArchive ? unpackHomeSeed(config.homeSeedArchive, path.join(workDir, 'home-seed')) : config.homeSeed ?? null;
  folder = new SandboxFolder(sandboxRuntimeDir(config.id), homeSeed, user);
  folder.create();
  markOwned(folder.root);
  // Programs in the sandbox see the user's environment, less Glance's
  // credentials and the user's desktop session, with the sandbox's own folders.
  const inherited = { ...programEnvironment(process.env, { ownSession: true }), ...folder.environment() };
  const { ACCESSIBILITY_ENV, startDesktopBus } = await import('./a11y/desktop-bus');
  const desktopBus = config.accessibility === false ? null : startDesktopBus(processes, inherited, folder.run, log, user);

  // Load the rest while Xvfb starts.
  const { X11Driver } = await import('./x11-driver');
  const { Launcher } = await import('./launcher');
  const { Lifetime } = await import('./lifetime');
  const { createAgentServer } = await import('./server');
  const { SandboxRegistry } = await import('../registry');
  const { waitFor } = await import('../../util/wait');
  const { A11yReader } = await import('./a11y/snapshot');
  const { startEvidence, recordingsDir } = await import('./evidence');
  const { PageLoads } = await import('./page-loads');
  const { ProgramSpace, asUser } = await import('./program-space');
  const { childrenOf, endMarkedPrograms, endProcesses } = await import('./program-reaper');

  const { display, pid: xvfbPid } = await xvfbReady;
  const bus = await desktopBus;
  const busEnv = bus ? { ...ACCESSIBILITY_ENV, DBUS_SESSION_BUS_ADDRESS: bus.address } : {};
  const env: NodeJS.ProcessEnv = { ...inherited, ...busEnv, ...config.environment, DISPLAY: display };
  processes.spawn('openbox', ['--sm-disable'], { env, cwd: '/', stdio: ['ignore', log, log], ...asUser(user) });
  const driver = await X11Driver.connect(display);
  // The dashcam, redraw detection and, for a preview, x11vnc with the preview page.
  const pageLoads = new PageLoads();
  const evidence = await startEvidence({
    display, driver, processes, recordingsDir: recordingsDir(config.stateDir), pageLoads,
    vnc: config.vnc ? { token: config.token, title: `Glance preview: ${config.id}`, env, log } : null,
  });
  const { vncPort, previewPort } = evidence;
  const accessibilityReady = bus?.startAccessibility(display);
  await waitFor('the window manager', () => driver.hasWindowManager(), { timeoutMs: 10_000, intervalMs: 10 });
  // Programs launched before the accessibility bus is there would publish no tree.
  if (accessibilityReady && !(await accessibilityReady)) fs.writeSync(log, `${new Date().toISOString()} the accessibility bus did not come up: snapshots will be empty\n`);
  const a11y = new A11yReader(env.DBUS_SESSION_BUS_ADDRESS, driver);

  // What a person does in the live preview (or any X client), for the recorder.
  const recording = recordingRoutes(() => InputRecording.start(display, driver.inputClient()));
  const registry = new SandboxRegistry(config.stateDir);
  let ending = false;
  const terminate = async (reason: string) => {
    if (ending) return;
    ending = true;
    lifetime.end();
    server.close();
    a11y.close();
    await recording.stop();
    await evidence.stop();
    await driver.close();
    await endMarkedPrograms(space, null, { closeMs: 0, termMs: 500 });
    await processes.killAll();
    folder?.remove();
    registry.markStopped(config.id, reason);
    fs.writeSync(log, `${new Date().toISOString()} stopped: ${reason}\n`);
    process.exit(0);
  };
  const lifetime = new Lifetime((reason) => void terminate(reason), config.keepAlive);
  const space = new ProgramSpace(env, folder.home, user, config.id, folder.browsers);
  const launcher = new Launcher(driver, processes, space, workDir, pageLoads, (deadlineMs) => focusedWidgets(a11y, deadlineMs));
  const resetPrograms = async () => {
    const ended = await launcher.endPrograms();
    // Services the session bus started on demand (dconf) hold the home: they go too, and start again when asked.
    const services = bus ? await endProcesses(childrenOf(bus.pid), null, { closeMs: 0, termMs: 1000 }) : 0;
    folder!.reset();
    return ended + services;
  };
  const server = createAgentServer({
    id: config.id,
    token: config.token,
    driver,
    processes,
    lifetime,
    space,
    a11y,
    resetPrograms,
    launcher,
    pages: pageLoads,
    routes: { ...evidence.routes, ...recording.routes },
    describe: () => ({
      id: config.id, display, width: driver.width, height: driver.height, pid: process.pid, vncPort, previewPort,
      state: lifetime.state, expiresAt: lifetime.expiresAt ? new Date(lifetime.expiresAt).toISOString() : null,
    }),
    terminate: (reason) => void terminate(reason),
  });
  await new Promise<void>((resolve) => server.listen(config.listen?.port ?? 0, config.listen?.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  process.on('SIGTERM', () => void terminate('SIGTERM'));
  process.on('SIGINT', () => void terminate('SIGINT'));
  process.on('uncaughtException', (error) => {
    fs.writeSync(log, `${new Date().toISOString()} crashed: ${error.stack}\n`);
    void terminate(`agent crashed: ${error.message}`);
  });
  // Recorded so that reaping later can tell these processes from others that reuse their pids.
  const identity = { agent: processIdentity(process.pid), xvfb: processIdentity(xvfbPid) };
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid, xvfbPid, identity, port, display, vncPort, previewPort, workDir })}\n`);
  // Off the start's path: what sandboxes killed outright left behind goes now.
  setImmediate(removeOrphanedSandboxDirs);
}

/** Which windows the tree shows, and in which of them a widget has the keyboard focus. */
async function focusedWidgets(a11y: import('./a11y/snapshot').A11yReader, deadlineMs: number): Promise<{ windows: Set<string>; focusedIn: Set<string>; publishing: Set<number> }> {
  const [{ nodes }, publishing] = await Promise.all([a11y.snapshot({ deadlineMs }), a11y.applicationPids(deadlineMs)]);
  return { windows: new Set(nodes.map((n) => n.window)), focusedIn: new Set(nodes.filter((n) => n.states.includes('focused')).map((n) => n.window)), publishing };
}

main().catch(async (error) => {
  await processes.killAll();
  folder?.remove();
  process.stdout.write(`${JSON.stringify({ ready: false, error: error.message })}\n`, () => process.exit(1));
});
