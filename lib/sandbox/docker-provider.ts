import fs from 'fs';
import path from 'path';
import { PassThrough } from 'stream';
import type Docker from 'dockerode';
import { SandboxError } from '../config/errors';
import { GLANCE_VERSION } from '../util/version';
import type { LocalSandboxSpec } from './local-provider';
import { SandboxRecord, SandboxRegistry } from './registry';
import { newSandboxIdentity, rejoinRecord, supervisorConfig, SandboxBackend } from './backend';

/** The image sandboxes run (`glance image build` makes it), unless GLANCE_SANDBOX_IMAGE names another. */
export const DEFAULT_SANDBOX_IMAGE = `glance-sandbox:${GLANCE_VERSION}`;
/** The label every sandbox container carries: the engine's own list of what runs. */
export const SANDBOX_LABEL = 'glance.sandbox';
/** A sandbox never outlives this, whatever its keepAlive: the backstop for one whose supervisor hangs. */
const DEFAULT_DEADLINE_MS = 4 * 60 * 60_000;
const READY_TIMEOUT_MS = 30_000;
/** The limits of one sandbox: a desktop, a browser and a recording fit in them. */
const DEFAULT_LIMITS = { memoryBytes: 2 * 1024 ** 3, cpus: 2 };

/**
 * Sandboxes as Docker containers: one container per sandbox, from the
 * sandbox image, running the same supervisor a local sandbox runs. Containers
 * use the host's network (the agent listens on loopback with its token) and
 * their own process, mount and shared-memory spaces. The sandbox's folder in
 * the state folder (its log, its clips) is mounted at the same path, so the
 * client finds them where it finds a local sandbox's.
 *
 * What runs is what Docker says runs: containers labelled glance.sandbox.
 * The registry record is this machine's handle on one (its port and token);
 * events from Docker mark it stopped when its container ends, and a restart
 * rebuilds the list from the labels (`reconcile`).
 */
export class DockerProvider implements SandboxBackend {
  private docker: Docker | null = null;
  private events: NodeJS.ReadableStream | null = null;
  /** The first use reconciles with Docker: containers left by a process that crashed are taken up or ended. */
  private reconciled: Promise<string[]> | null = null;
  private readonly deadlines = new Set<NodeJS.Timeout>();

  constructor(
    private readonly registry: SandboxRegistry,
    private readonly image = process.env.GLANCE_SANDBOX_IMAGE || DEFAULT_SANDBOX_IMAGE,
    private readonly deadlineMs = DEFAULT_DEADLINE_MS,
    /** The project's folder, seen read-only at the same path in every container. */
    private readonly projectDir = process.cwd(),
  ) {}

  private engine(): Docker {
    if (!this.docker) {
      // Loaded here: only the docker backend needs it.
      const Dockerode = require('dockerode') as typeof Docker;
      this.docker = new Dockerode();
    }
    return this.docker;
  }

  async create(spec: LocalSandboxSpec, owner: { team?: number } = {}): Promise<SandboxRecord> {
    const docker = this.engine();
    await this.requireImage(docker);
    await (this.reconciled ??= this.reconcile());
    const { id, token } = newSandboxIdentity();
    const workDir = this.registry.workDir(id);
    fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
    const recordings = path.join(this.registry.stateDir, 'recordings');
    fs.mkdirSync(recordings, { recursive: true });
    const config = supervisorConfig(id, token, spec, this.registry.stateDir);
    const createdAt = new Date();
    const container = await docker.createContainer({
      Image: this.image,
      name: `glance-${id}`,
      Env: [`GLANCE_SUPERVISOR_CONFIG=${JSON.stringify(config)}`],
      Labels: {
        [SANDBOX_LABEL]: id,
        'glance.team': owner.team === undefined ? '' : String(owner.team),
        'glance.expires': new Date(createdAt.getTime() + this.deadlineMs).toISOString(),
        'glance.state-dir': this.registry.stateDir,
      },
      AttachStdout: true,
      AttachStderr: true,
      HostConfig: {
        NetworkMode: 'host',
        AutoRemove: true,
        // The supervisor would be process 1, which reaps no orphans: an init (docker.io's tini) does.
        Init: true,
        Memory: DEFAULT_LIMITS.memoryBytes,
        NanoCpus: DEFAULT_LIMITS.cpus * 1e9,
        ShmSize: 512 * 1024 ** 2,
        // The project (file:// pages, programs it ships) read-only where it is here; the sandbox's own folders writable.
        Binds: [...projectMount(this.projectDir), `${workDir}:${workDir}`, `${recordings}:${recordings}`, ...(spec.homeSeed ? [`${spec.homeSeed}:${spec.homeSeed}:ro`] : [])],
      },
    });
    const output = new PassThrough();
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    docker.modem.demuxStream(stream, output, fs.createWriteStream(path.join(workDir, 'container.log'), { flags: 'a' }));
    const ready = readyLine(output, id, workDir);
    try {
      await container.start();
      const answer = await ready;
      if (!answer.ready) throw new SandboxError(`Sandbox ${id} failed to start in its container: ${answer.error}`);
      const record: SandboxRecord = {
        id, pid: 0, xvfbPid: 0, display: answer.display, port: answer.port, token, os: 'linux',
        width: spec.width, height: spec.height, vncPort: answer.vncPort, workDir,
        createdAt: createdAt.toISOString(), state: 'running', backend: 'docker', container: container.id,
      };
      this.registry.write(record);
      this.registry.setLast(id);
      // The hard deadline, while this process lives; after it, the next one's reconcile enforces the label.
      const deadline = setTimeout(() => {
        this.deadlines.delete(deadline);
        void container.remove({ force: true }).catch(() => undefined);
      }, this.deadlineMs);
      deadline.unref();
      this.deadlines.add(deadline);
      return record;
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw error;
    } finally {
      (stream as unknown as { destroy(): void }).destroy();
    }
  }

  /** Finds a running sandbox by id, or fails with what became of it. */
  async rejoin(id: string): Promise<SandboxRecord> {
    const record = await rejoinRecord(this.registry, id, 'docker', async (known, agent) => {
      const running = await this.engine().getContainer(known.container!).inspect().then((c) => c.State.Running, () => false);
      if (!running) throw new Error('its container is gone');
      await agent.call('GET', '/health', undefined, 2_000);
    });
    await this.follow();
    return record;
  }

  /**
   * Brings the registry in line with Docker after a restart: records whose
   * container is gone are marked stopped, and containers past their deadline
   * (glance.expires) are ended. Returns the ids still running.
   */
  async reconcile(now = Date.now()): Promise<string[]> {
    const docker = this.engine();
    const containers = await docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}`, `glance.state-dir=${this.registry.stateDir}`] } });
    const running = new Set<string>();
    for (const c of containers) {
      const id = c.Labels[SANDBOX_LABEL];
      const expired = Date.parse(c.Labels['glance.expires'] ?? '') <= now;
      if (c.State !== 'running' || expired) {
        this.registry.markStopped(id, expired ? 'past its deadline' : `its container ${c.State}`);
        await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
      } else running.add(id);
    }
    for (const record of this.registry.list()) {
      if (record.backend === 'docker' && record.state === 'running' && !running.has(record.id)) this.registry.markStopped(record.id, 'its container is gone');
    }
    await this.follow();
    return [...running];
  }

  /**
   * Whether a sandbox's container still runs, asked of Docker now (its
   * event may not have come yet); one that ended is recorded as stopped.
   */
  async confirmAlive(id: string): Promise<boolean> {
    const record = this.registry.read(id);
    if (!record?.container || record.state !== 'running') return false;
    const state = await this.engine().getContainer(record.container).inspect().then((c) => c.State, () => null);
    if (state?.Running) return true;
    this.registry.markStopped(id, state ? `its container ended (exit code ${state.ExitCode})` : 'its container is gone');
    return false;
  }

  /** Waits until a stopped sandbox's container is gone (its supervisor finishing the clip), at most `boundMs`; then removes it. */
  async removed(id: string, boundMs = 15_000): Promise<void> {
    const container = this.registry.read(id)?.container;
    if (!container) return;
    const handle = this.engine().getContainer(container);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), boundMs); });
    const outcome = await Promise.race([handle.wait({ condition: 'removed' }).then(() => 'gone' as const, () => 'gone' as const), bound]);
    clearTimeout(timer);
    if (outcome === 'late') await handle.remove({ force: true }).catch(() => undefined);
  }

  /** Stops following Docker's events (so the process can exit). */
  close(): void {
    (this.events as unknown as { destroy?(): void } | null)?.destroy?.();
    this.events = null;
    for (const deadline of this.deadlines) clearTimeout(deadline);
    this.deadlines.clear();
  }

  /** Marks a sandbox stopped the moment its container ends, whoever ended it. */
  private async follow(): Promise<void> {
    if (this.events) return;
    const stream = await this.engine().getEvents({ filters: { type: ['container'], event: ['die'], label: [`glance.state-dir=${this.registry.stateDir}`] } });
    this.events = stream;
    (stream as unknown as { unref?(): void }).unref?.();
    const socket = (stream as unknown as { socket?: { unref(): void } }).socket;
    socket?.unref();
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let end: number;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 1);
        try {
          const event = JSON.parse(line) as { Actor?: { Attributes?: Record<string, string> } };
          const id = event.Actor?.Attributes?.[SANDBOX_LABEL];
          const code = event.Actor?.Attributes?.exitCode;
          if (id) this.registry.markStopped(id, `its container ended (exit code ${code ?? 'unknown'})`);
        } catch { /* a partial line: the rest comes with the next chunk */ }
      }
    });
    stream.on('error', () => { this.events = null; });
    stream.on('end', () => { this.events = null; });
  }

  private async requireImage(docker: Docker): Promise<void> {
    try {
      await docker.getImage(this.image).inspect();
    } catch (error) {
      const message = (error as Error).message;
      if (/ENOENT|ECONNREFUSED|connect/.test(message)) throw new SandboxError(`The docker backend cannot reach Docker's engine (${message}). Start dockerd, or use the local backend (sandboxBackend: 'local').`);
      throw new SandboxError(`No sandbox image '${this.image}' in Docker. Build it with 'npx glance image build', or name another with GLANCE_SANDBOX_IMAGE.`);
    }
  }
}

/** Folders of the system itself: a project there is not mounted, since it would hide the container's own. */
const SYSTEM_FOLDERS = ['/', '/bin', '/boot', '/dev', '/etc', '/lib', '/lib64', '/opt', '/proc', '/run', '/sbin', '/sys', '/tmp', '/usr', '/var'];
const SYSTEM_TREES = ['/usr/', '/etc/', '/proc/', '/sys/', '/dev/', '/opt/glance'];

/** The project's folder as a read-only mount at the same path, unless it is a folder of the system, or in one. */
export function projectMount(dir: string): string[] {
  const resolved = path.resolve(dir);
  if (SYSTEM_FOLDERS.includes(resolved) || SYSTEM_TREES.some((tree) => resolved.startsWith(tree))) return [];
  return [`${resolved}:${resolved}:ro`];
}

interface ReadyAnswer { ready: boolean; error?: string; port: number; display: string; vncPort: number | null }

/** The supervisor's one "ready" line, or an error naming the log, within READY_TIMEOUT_MS. */
function readyLine(output: NodeJS.ReadableStream, id: string, workDir: string): Promise<ReadyAnswer> {
  return new Promise((resolve, reject) => {
    let text = '';
    const log = path.join(workDir, 'agent.log');
    const timer = setTimeout(() => reject(new SandboxError(`Sandbox ${id} did not become ready in its container within ${READY_TIMEOUT_MS / 1000} s. See ${log} and ${path.join(workDir, 'container.log')}.`)), READY_TIMEOUT_MS);
    output.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const end = text.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      try { resolve(JSON.parse(text.slice(0, end))); } catch (e) { reject(e); }
    });
    output.on('end', () => {
      clearTimeout(timer);
      reject(new SandboxError(`Sandbox ${id}'s container ended before it was ready. See ${log} and ${path.join(workDir, 'container.log')}.`));
    });
  });
}
