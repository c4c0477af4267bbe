/**
 * A local sandbox's supervisor process: starts Xvfb (first, since it is the
 * slowest part), a D-Bus session bus with AT-SPI's accessibility bus, a window
 * manager and optionally x11vnc, then serves the agent API until its lifetime
 * ends, and takes every child down with it.
 *
 * Started detached by the local provider, which writes the config as one JSON
 * line on stdin (so the token is never on a command line) and reads one JSON
 * "ready" line back from stdout.
 */
import fs from 'fs';
import net from 'net';
import path from 'path';
import { ProcessGroup } from './processes';
import { processIdentity } from '../process-identity';
import { sandboxRuntimeDir } from '../runtime-dir';

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
}

function readConfig(): Promise<SupervisorConfig> {
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
    const xvfb = processes.spawn('Xvfb', ['-displayfd', '3', '-screen', '0', `${width}x${height}x24`, '-nolisten', 'tcp', '-dpi', '96'], {
      stdio: ['ignore', log, log, 'pipe'],
    });
    let output = '';
    const pipe = xvfb.stdio[3] as NodeJS.ReadableStream;
    pipe.setEncoding('utf8');
    pipe.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('\n')) resolve({ display: `:${output.trim()}`, pid: xvfb.pid! });
    });
    xvfb.once('error', (e) => reject(new Error(`Xvfb could not start: ${e.message}. Install it with 'apt-get install xvfb'.`)));
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited with code ${code} before it was ready`)));
    setTimeout(() => reject(new Error('Xvfb did not report a display within 10 s')), 10_000).unref();
  });
}

const processes = new ProcessGroup();
/** The sandbox's private XDG_RUNTIME_DIR, where its buses listen; removed when it stops. */
let runtimeDir: string | null = null;

async function main(): Promise<void> {
  const config = await readConfig();
  const workDir = path.join(config.stateDir, 'sandboxes', config.id);
  fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
  const log = fs.openSync(path.join(workDir, 'agent.log'), 'a');
  const xvfbReady = startXvfb(processes, config.width, config.height, log);
  // Programs in the sandbox see the user's environment, but not Glance's own
  // credentials, nor the user's desktop session: its buses and its Wayland.
  const { GLANCE_API_KEY: _key, GLANCE_AGENT_TOKEN: _token, ...inherited } = process.env;
  const { FOREIGN_SESSION_ENV, ACCESSIBILITY_ENV, startDesktopBus } = await import('./a11y/desktop-bus');
  for (const name of FOREIGN_SESSION_ENV) delete inherited[name];
  const runtime = sandboxRuntimeDir(config.id);
  runtimeDir = runtime;
  const desktopBus = config.accessibility === false ? null : startDesktopBus(processes, inherited, runtime, log);

  // Load the rest while Xvfb starts.
  const { X11Driver } = await import('./x11-driver');
  const { Launcher } = await import('./launcher');
  const { Lifetime } = await import('./lifetime');
  const { createAgentServer } = await import('./server');
  const { SandboxRegistry } = await import('../registry');
  const { waitFor } = await import('../../util/wait');
  const { A11yReader } = await import('./a11y/snapshot');
  const { startEvidence, recordingsDir } = await import('./evidence');

  const { display, pid: xvfbPid } = await xvfbReady;
  const bus = await desktopBus;
  const busEnv = bus ? { ...ACCESSIBILITY_ENV, DBUS_SESSION_BUS_ADDRESS: bus.address, XDG_RUNTIME_DIR: runtime } : {};
  // Programs' temporary files (Chromium's singleton socket folder, which a killed Chromium leaves) go with the sandbox.
  const tmp = path.join(runtime, 'tmp');
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const env: NodeJS.ProcessEnv = { ...inherited, TMPDIR: tmp, ...busEnv, ...config.environment, DISPLAY: display, HOME: process.env.HOME ?? workDir };
  processes.spawn('openbox', ['--sm-disable'], { env, stdio: ['ignore', log, log] });
  const driver = await X11Driver.connect(display);
  // The dashcam, redraw detection and, for a preview, x11vnc with the preview page.
  const evidence = await startEvidence({
    display, driver, processes, recordingsDir: recordingsDir(config.stateDir),
    vnc: config.vnc ? { token: config.token, title: `Glance preview: ${config.id}`, env, log } : null,
  });
  const { vncPort, previewPort } = evidence;
  const accessibilityReady = bus?.startAccessibility(display);
  await waitFor('the window manager', () => driver.hasWindowManager(), { timeoutMs: 10_000, intervalMs: 10 });
  // Programs launched before the accessibility bus is there would publish no tree.
  if (accessibilityReady && !(await accessibilityReady)) fs.writeSync(log, `${new Date().toISOString()} the accessibility bus did not come up: snapshots will be empty\n`);
  const a11y = new A11yReader(env.DBUS_SESSION_BUS_ADDRESS, driver);

  const registry = new SandboxRegistry(config.stateDir);
  let ending = false;
  const terminate = async (reason: string) => {
    if (ending) return;
    ending = true;
    lifetime.end();
    server.close();
    a11y.close();
    await evidence.stop();
    await driver.close();
    await processes.killAll();
    fs.rmSync(runtime, { recursive: true, force: true });
    registry.markStopped(config.id, reason);
    for (const entry of fs.readdirSync(workDir)) {
      if (entry.startsWith('chromium-')) fs.rmSync(path.join(workDir, entry), { recursive: true, force: true });
    }
    fs.writeSync(log, `${new Date().toISOString()} stopped: ${reason}\n`);
    process.exit(0);
  };
  const lifetime = new Lifetime((reason) => void terminate(reason), config.keepAlive);
  const server = createAgentServer({
    id: config.id,
    token: config.token,
    driver,
    processes,
    lifetime,
    env,
    workDir,
    a11y,
    launcher: new Launcher(driver, processes, env, workDir),
    routes: evidence.routes,
    describe: () => ({
      id: config.id, display, width: driver.width, height: driver.height, pid: process.pid, vncPort, previewPort,
      state: lifetime.state, expiresAt: lifetime.expiresAt ? new Date(lifetime.expiresAt).toISOString() : null,
    }),
    terminate: (reason) => void terminate(reason),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
}

main().catch(async (error) => {
  await processes.killAll();
  if (runtimeDir) fs.rmSync(runtimeDir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ ready: false, error: error.message })}\n`, () => process.exit(1));
});
