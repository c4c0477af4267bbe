import fs from 'fs';
import os from 'os';
import path from 'path';
import { X11Driver } from '../sandbox/agent/x11-driver';
import { NutDriver } from '../sandbox/agent/nut-driver';
import { splitDriver } from '../sandbox/agent/split-driver';
import { InputRecording } from '../sandbox/agent/input-recording';
import { recordingRoutes } from '../sandbox/agent/recording-routes';
import { InvalidOptionError } from '../config/errors';
import type { Os } from '../config/options';
import { Launcher } from '../sandbox/agent/launcher';
import { PageLoads } from '../sandbox/agent/page-loads';
import { ProcessGroup } from '../sandbox/agent/processes';
import { createAgentServer } from '../sandbox/agent/server';
import { startEvidence } from '../sandbox/agent/evidence';
import { programEnvironment } from '../sandbox/agent/program-env';
import { ProgramSpace } from '../sandbox/agent/program-space';
import { endMarkedPrograms } from '../sandbox/agent/program-reaper';
import { markOwned, removeOrphanedFolders } from '../sandbox/owned-folders';
import { hostPort, parseFlags } from './flags';

const DRIVERS = ['x11', 'nut'] as const;

/**
 * `glance agent --listen HOST:PORT [--driver x11|nut]`: serves this machine's
 * desktop (on Linux, the X display DISPLAY names) to Glance clients that
 * connect with `ip`, or through the team server it is registered with. The
 * x11 driver is Linux's; the nut driver (nut-js) runs on Windows, macOS and
 * X11, and is the default off Linux. It never stops its machine; it ends
 * on Ctrl-C, taking the apps it launched with it.
 */
export async function agentCommand(args: string[]): Promise<number> {
  const { flags } = parseFlags(args);
  const listen = typeof flags.listen === 'string' ? flags.listen : '127.0.0.1:4780';
  const { host, port } = hostPort('--listen', listen, '0.0.0.0:4780');
  const token = typeof flags.token === 'string' ? flags.token : process.env.GLANCE_AGENT_TOKEN;
  if (!token || token.length < 16) throw new Error('The agent needs a token of 16 or more characters: --token T or GLANCE_AGENT_TOKEN. Clients set GLANCE_AGENT_TOKEN to the same value.');
  const onX11 = process.platform === 'linux';
  const driverName = typeof flags.driver === 'string' ? flags.driver : onX11 ? 'x11' : 'nut';
  if (!DRIVERS.includes(driverName as (typeof DRIVERS)[number])) throw new InvalidOptionError('driver', `--driver takes 'x11' (Linux's X display) or 'nut' (nut-js: Windows, macOS and X11); got '${driverName}'.`);
  if (driverName === 'x11' && !onX11) throw new InvalidOptionError('driver', `The x11 driver serves an X display, which ${process.platform} does not have: use --driver nut (the default here).`);
  const display = onX11 ? (typeof flags.display === 'string' ? flags.display : process.env.DISPLAY) : undefined;
  if (onX11 && !display) throw new Error('No display: set DISPLAY (e.g. :0) or pass --display :0.');
  // nut-js opens the X display that DISPLAY names.
  if (display) process.env.DISPLAY = display;

  // On X11 the nut driver's windows are the X server's own (split-driver.ts says why).
  const x11 = display ? await X11Driver.connect(display) : null;
  const driver = driverName === 'x11' ? x11! : x11 ? splitDriver(await NutDriver.connect(), x11) : await NutDriver.connect();
  const served = hostDesktop();
  const processes = new ProcessGroup();
  // The work folders of agents that could not remove theirs: killed, or ended by Xlib when their display went first.
  removeOrphanedFolders(WORK_DIR_PREFIX);
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), WORK_DIR_PREFIX));
  markOwned(workDir);
  const id = `agent-${os.hostname()}`;
  // Programs it starts see this machine's environment, never the agent's token or Glance's keys. Their temp
  // files go in the work folder, and with it: a browser ended at the stop leaves its singleton folder there.
  const space = new ProgramSpace({ ...programEnvironment(process.env, { ownSession: false }), ...programTempFolder(workDir), ...(display ? { DISPLAY: display } : {}) }, workDir, null, `${id}-${process.pid}`);
  const pageLoads = new PageLoads();
  const launcher = new Launcher(driver, processes, space, workDir, pageLoads);
  // The dashcam records into the agent's own folder; clients fetch their clips over HTTP.
  const evidence = await startEvidence({ display: display ?? 'desktop', driver, processes, recordingsDir: path.join(workDir, 'recordings'), vnc: null, pageLoads });
  // What a person does at this machine, for the recorder: the X server tells (RECORD); other desktops do not.
  const recording = recordingRoutes(async () => {
    // The nut driver injects through libnut's own X connection, whose input could not be told from a person's.
    if (driverName !== 'x11' || !x11 || !display) throw Object.assign(new Error(`recording input needs the x11 driver; this agent runs the ${driverName} driver`), { status: 501 });
    return InputRecording.start(display, x11.inputClient());
  });
  const server = createAgentServer({
    id, token, driver, processes, space, routes: { ...evidence.routes, ...recording.routes }, launcher, pages: pageLoads,
    resetPrograms: () => launcher.endPrograms(),
    describe: () => ({ id, display: display ?? 'desktop', os: served, driver: driverName, width: driver.width, height: driver.height, pid: process.pid, vncPort: null, state: 'self-hosted' }),
    terminate: () => undefined,
  });
  await new Promise<void>((resolve, reject) => server.listen(port, host, resolve).on('error', reject));
  const bound = server.address() as import('net').AddressInfo;
  console.log(`Glance agent serving ${display ? `display ${display}` : `the ${served} desktop`} (${driver.width}x${driver.height}, ${driverName} driver) on ${host}:${bound.port}.`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.close();
  recording.stop();
  await evidence.stop();
  await endMarkedPrograms(space, null, { closeMs: 0, termMs: 500 });
  await processes.killAll();
  await driver.close();
  fs.rmSync(workDir, { recursive: true, force: true });
  return 0;
}

/** The self-hosted agent's work folder in the system's temp folder: its programs' browser profiles and temp files, logs and clips. */
const WORK_DIR_PREFIX = 'glance-agent-';

/** A temp folder of the programs' own in the work folder, in the variables their platform reads. */
function programTempFolder(workDir: string): NodeJS.ProcessEnv {
  const tmp = path.join(workDir, 'tmp');
  fs.mkdirSync(tmp, { mode: 0o700 });
  return process.platform === 'win32' ? { TEMP: tmp, TMP: tmp } : { TMPDIR: tmp };
}

/** The desktop this machine serves, as a client's `os` names it (macOS has no such name: its clients connect by ip). */
function hostDesktop(): Os | 'macos' {
  return process.platform === 'win32' ? 'windows' : process.platform === 'darwin' ? 'macos' : 'linux';
}
