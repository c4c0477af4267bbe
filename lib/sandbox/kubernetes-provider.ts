import fs from 'fs';
import net from 'net';
import { createHash } from 'crypto';
import type * as K8s from '@kubernetes/client-node';
import { SandboxError } from '../config/errors';
import { AgentClient } from './agent-client';
import type { LocalSandboxSpec } from './local-provider';
import { SandboxRecord, SandboxRegistry } from './registry';
import { newSandboxIdentity, rejoinRecord, supervisorConfig, SandboxBackend } from './backend';
import { DEFAULT_SANDBOX_IMAGE, SANDBOX_LABEL } from './docker-provider';
import { packHomeSeed } from './home-seed-archive';

/** A sandbox never outlives this, whatever its keepAlive: the pod's activeDeadlineSeconds. */
const DEFAULT_DEADLINE_MS = 4 * 60 * 60_000;
/** From the pod's creation to its agent answering: an image already on the node starts in seconds. */
const READY_TIMEOUT_MS = 60_000;
const REMOVE_BOUND_MS = 15_000;
/** How long a pod listed as running, whose agent does not answer, is asked again before it counts as gone. */
const CONFIRM_BOUND_MS = 10_000;
/** Where the supervisor keeps its sandbox's folder inside the pod (an emptyDir). */
const POD_STATE_DIR = '/var/lib/glance';
/** The ports a pod's agent may be given: clear of the well-known ones and of most ephemeral ranges. */
const AGENT_PORTS = { first: 20_000, count: 10_000 };

/** How this process reaches a pod's agent. */
export type PodAccess = 'pod-ip' | 'port-forward';

export interface KubernetesSettings {
  /** The namespace sandboxes run in: GLANCE_KUBERNETES_NAMESPACE, else the kubeconfig context's, else 'glance'. */
  namespace?: string;
  image?: string;
  /** GLANCE_KUBERNETES_ACCESS; default: by the pod's IP inside a cluster, by port-forward outside. */
  access?: PodAccess;
  deadlineMs?: number;
}

type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

/**
 * Sandboxes as Kubernetes pods: one pod per sandbox, from the sandbox image,
 * running the same supervisor a local sandbox runs. The pod carries the
 * labels (sandbox id, team, this state folder's owner key) and the hard
 * deadline (activeDeadlineSeconds: the cluster ends the pod, whatever
 * happens to this process). Concurrency is the namespace's ResourceQuota:
 * a create beyond it is refused by the API server, and the error says so.
 *
 * What runs is what the API server says runs: pods with these labels. The
 * registry record is this process's handle on one (its agent's address and
 * token); a watch on the pods marks it stopped when its pod ends, and a
 * restart rebuilds the list from the labels (`reconcile`).
 */
export class KubernetesProvider implements SandboxBackend {
  private api: { core: K8s.CoreV1Api; config: K8s.KubeConfig; lib: typeof K8s; namespace: string } | null = null;
  private watching: Promise<AbortController> | null = null;
  private reconciled: Promise<string[]> | null = null;
  /** Port-forward listeners on this machine, by sandbox id. */
  private readonly forwards = new Map<string, net.Server>();
  /** The label that says which state folder's server started a pod: a label value cannot hold a path. */
  private readonly ownerKey: string;
  private readonly image: string;
  private readonly deadlineMs: number;

  constructor(private readonly registry: SandboxRegistry, private readonly settings: KubernetesSettings = {}) {
    this.ownerKey = createHash('sha256').update(registry.stateDir).digest('hex').slice(0, 16);
    this.image = settings.image ?? (process.env.GLANCE_SANDBOX_IMAGE || DEFAULT_SANDBOX_IMAGE);
    this.deadlineMs = settings.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  private cluster(): NonNullable<KubernetesProvider['api']> {
    if (this.api) return this.api;
    // Loaded here: only the kubernetes backend needs it.
    const lib = require('@kubernetes/client-node') as typeof K8s;
    const config = new lib.KubeConfig();
    try {
      config.loadFromDefault();
    } catch (error) {
      throw new SandboxError(`The kubernetes backend cannot read its kubeconfig (${(error as Error).message}). Set KUBECONFIG to a valid file, or run the server in the cluster with its ServiceAccount (deploy/kubernetes/).`);
    }
    if (!config.getCurrentCluster()) throw new SandboxError('The kubernetes backend found no cluster: set KUBECONFIG to a kubeconfig whose current context names one, or run the server in the cluster with its ServiceAccount (deploy/kubernetes/).');
    const namespace = this.settings.namespace ?? (process.env.GLANCE_KUBERNETES_NAMESPACE || config.getContextObject(config.getCurrentContext())?.namespace || 'glance');
    this.api = { core: config.makeApiClient(lib.CoreV1Api), config, lib, namespace };
    return this.api;
  }

  private access(): PodAccess {
    const chosen = this.settings.access ?? process.env.GLANCE_KUBERNETES_ACCESS;
    if (chosen === 'pod-ip' || chosen === 'port-forward') return chosen;
    if (chosen) throw new SandboxError(`GLANCE_KUBERNETES_ACCESS is '${chosen}'; use 'pod-ip' (the server runs in the cluster) or 'port-forward' (it runs outside).`);
    return process.env.KUBERNETES_SERVICE_HOST ? 'pod-ip' : 'port-forward';
  }

  private selector(): string {
    return `${SANDBOX_LABEL},glance.owner=${this.ownerKey}`;
  }

  async create(spec: LocalSandboxSpec, owner: { team?: number } = {}): Promise<SandboxRecord> {
    const { core, namespace } = this.cluster();
    this.access();
    await (this.reconciled ??= this.reconcile());
    const { id, token } = newSandboxIdentity();
    const workDir = this.registry.workDir(id);
    fs.mkdirSync(workDir, { recursive: true, mode: 0o700 });
    // Pods that share their node's network (hostNetwork) must not all listen on one port.
    const port = AGENT_PORTS.first + Math.floor(Math.random() * AGENT_PORTS.count);
    // A pod shares no files with this machine: the home's seed travels packed in the config.
    const config = {
      ...supervisorConfig(id, token, { ...spec, homeSeed: null }, POD_STATE_DIR),
      listen: { host: '0.0.0.0', port },
      ...(spec.homeSeed ? { homeSeedArchive: packHomeSeed(spec.homeSeed) } : {}),
    };
    const name = `glance-${id}`;
    const createdAt = new Date();
    const pod: K8s.V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        labels: { [SANDBOX_LABEL]: id, 'glance.team': owner.team === undefined ? '' : String(owner.team), 'glance.owner': this.ownerKey },
        annotations: { 'glance.expires': new Date(createdAt.getTime() + this.deadlineMs).toISOString(), 'glance.state-dir': this.registry.stateDir },
      },
      spec: {
        restartPolicy: 'Never',
        // The cluster ends the pod at its deadline, whether or not this process still lives.
        activeDeadlineSeconds: Math.ceil(this.deadlineMs / 1000),
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 10,
        containers: [{
          name: 'sandbox',
          image: this.image,
          imagePullPolicy: 'IfNotPresent',
          env: [{ name: 'GLANCE_SUPERVISOR_CONFIG', value: JSON.stringify(config) }],
          ports: [{ name: 'agent', containerPort: port }],
          // The agent listens once its desktop is up: a pod is ready when it answers.
          readinessProbe: { tcpSocket: { port }, periodSeconds: 1, failureThreshold: 60 },
          resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } },
          volumeMounts: [{ name: 'shm', mountPath: '/dev/shm' }],
        }],
        volumes: [{ name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: '512Mi' } }],
      },
    };
    try {
      await core.createNamespacedPod({ namespace, body: pod });
    } catch (error) {
      throw this.refusal(error, `create the sandbox's pod in namespace '${namespace}'`);
    }
    try {
      const ready = await this.ready(name, READY_TIMEOUT_MS);
      const answer = await this.readyLine(name);
      const reach = await this.reach(id, name, ready.status?.podIP, port);
      const record: SandboxRecord = {
        id, pid: 0, xvfbPid: 0, display: answer.display, port: reach.port, host: reach.host, token, os: 'linux',
        width: spec.width, height: spec.height, vncPort: null, workDir,
        createdAt: createdAt.toISOString(), state: 'running', backend: 'kubernetes', pod: name,
      };
      this.registry.write(record);
      this.registry.setLast(id);
      this.follow();
      return record;
    } catch (error) {
      await this.deletePod(name);
      this.closeForward(id);
      throw error;
    }
  }

  async rejoin(id: string): Promise<SandboxRecord> {
    const record = await rejoinRecord(this.registry, id, 'kubernetes', async (known) => {
      const pod = await this.readPod(known.pod!);
      if (pod?.status?.phase !== 'Running') throw new Error(pod ? `its pod is ${pod.status?.phase ?? 'in no phase'}` : 'its pod is gone');
      // After a restart of this process, a port-forward is made again; a pod's IP stays its own.
      const reach = await this.reach(id, known.pod!, pod.status.podIP, agentPortOf(pod));
      const agent = new AgentClient({ host: reach.host ?? '127.0.0.1', port: reach.port, token: known.token });
      try {
        await agent.call('GET', '/health', undefined, 2_000);
      } finally {
        agent.close();
      }
      this.registry.write({ ...known, port: reach.port, host: reach.host });
    }, () => this.closeForward(id));
    this.follow();
    return record;
  }

  /**
   * Brings the registry in line with the cluster after a restart: pods past
   * their deadline or no longer running are deleted, records whose pod is
   * gone are marked stopped. Returns the ids still running.
   */
  async reconcile(now = Date.now()): Promise<string[]> {
    const { core, namespace } = this.cluster();
    let pods: K8s.V1Pod[];
    try {
      pods = (await core.listNamespacedPod({ namespace, labelSelector: this.selector() })).items;
    } catch (error) {
      throw this.refusal(error, `list the sandboxes' pods in namespace '${namespace}'`);
    }
    const running = new Set<string>();
    for (const pod of pods) {
      const id = pod.metadata?.labels?.[SANDBOX_LABEL] ?? '';
      const expired = Date.parse(pod.metadata?.annotations?.['glance.expires'] ?? '') <= now;
      if (pod.status?.phase === 'Running' && !expired && !pod.metadata?.deletionTimestamp) {
        running.add(id);
        continue;
      }
      this.registry.markStopped(id, expired ? 'past its deadline' : stopReason(pod));
      await this.deletePod(pod.metadata!.name!);
    }
    for (const record of this.registry.list()) {
      if (record.backend === 'kubernetes' && record.state === 'running' && !running.has(record.id)) this.registry.markStopped(record.id, 'its pod is gone');
    }
    this.follow();
    return [...running];
  }

  /**
   * Whether a sandbox whose agent did not answer still runs. The kubelet
   * reports a container's end some seconds late, so a pod still listed as
   * running is asked again, and its agent too, until one of them says
   * (CONFIRM_BOUND_MS): an agent that answers is alive, a pod that ended is not.
   */
  async confirmAlive(id: string): Promise<boolean> {
    const record = this.registry.read(id);
    if (!record?.pod || record.state !== 'running') return false;
    const agent = new AgentClient({ host: record.host ?? '127.0.0.1', port: record.port, token: record.token });
    try {
      for (const until = Date.now() + CONFIRM_BOUND_MS; ;) {
        const pod = await this.readPod(record.pod).catch(() => undefined);
        // The API server did not answer: nothing says the pod ended.
        if (pod === undefined) return true;
        if (pod?.status?.phase !== 'Running') {
          this.registry.markStopped(id, pod ? stopReason(pod) : 'its pod is gone');
          return false;
        }
        if (await agent.call('GET', '/health', undefined, 1_000).then(() => true, () => false)) return true;
        if (Date.now() >= until) {
          this.registry.markStopped(id, 'its agent stopped answering, though its pod still runs');
          void this.deletePod(record.pod);
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    } finally {
      agent.close();
    }
  }

  /** Deletes a stopped sandbox's pod (a pod that ended stays listed until deleted) and waits until it is gone, at most `boundMs`. */
  async removed(id: string, boundMs = REMOVE_BOUND_MS): Promise<void> {
    const name = this.registry.read(id)?.pod;
    this.closeForward(id);
    if (!name) return;
    const until = Date.now() + boundMs;
    // The supervisor ends on release: give it the time to finish its clip before the pod is deleted.
    while (Date.now() < until) {
      const pod = await this.readPod(name).catch(() => null);
      if (!pod || pod.status?.phase !== 'Running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await this.deletePod(name);
    while (Date.now() < until && (await this.readPod(name).catch(() => null))) await new Promise((resolve) => setTimeout(resolve, 100));
  }

  close(): void {
    const watching = this.watching;
    this.watching = null;
    void watching?.then((controller) => controller.abort(), () => undefined);
    for (const id of [...this.forwards.keys()]) this.closeForward(id);
  }

  /** Resolves with the pod once it is ready (its agent answers the probe); fails once it ended, or after `timeoutMs`. */
  private async ready(name: string, timeoutMs: number): Promise<K8s.V1Pod> {
    const { lib, config, namespace } = this.cluster();
    return new Promise((resolve, reject) => {
      let controller: AbortController | null = null;
      let settled = false;
      const finish = (error: Error | null, pod?: K8s.V1Pod) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        controller?.abort();
        if (error) reject(error);
        else resolve(pod!);
      };
      const timer = setTimeout(() => finish(new SandboxError(`The sandbox's pod '${name}' was not ready within ${timeoutMs / 1000} s. See 'kubectl -n ${namespace} describe pod ${name}': the image may be missing on the node, or the namespace out of room.`)), timeoutMs);
      const seen = (pod: K8s.V1Pod) => {
        const phase = pod.status?.phase as PodPhase | undefined;
        if (phase === 'Succeeded' || phase === 'Failed') finish(new SandboxError(`The sandbox's pod '${name}' ended before it was ready (${stopReason(pod)}). See 'kubectl -n ${namespace} logs ${name}'.`));
        else if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) finish(null, pod);
      };
      new lib.Watch(config).watch(`/api/v1/namespaces/${namespace}/pods`, { fieldSelector: `metadata.name=${name}` }, (type, pod: K8s.V1Pod) => {
        if (type === 'DELETED') finish(new SandboxError(`The sandbox's pod '${name}' was deleted before it was ready.`));
        else seen(pod);
      }, (error) => {
        if (!settled) finish(new SandboxError(`The watch on the sandbox's pod '${name}' ended before it was ready${error ? ` (${error.message})` : ''}.`));
      }).then((c) => {
        controller = c;
        if (settled) c.abort();
      }, (error) => finish(this.refusal(error, `watch the sandbox's pod '${name}'`)));
    });
  }

  /** The supervisor's ready line, first in the pod's log (it follows the agent's listening by a moment): its display. */
  private async readyLine(name: string): Promise<{ display: string }> {
    const { core, namespace } = this.cluster();
    const until = Date.now() + 5_000;
    let line = '';
    while (!line.endsWith('\n') && Date.now() < until) {
      if (line) await new Promise((resolve) => setTimeout(resolve, 50));
      const log = await core.readNamespacedPodLog({ name, namespace, container: 'sandbox' }).catch((error) => { throw this.refusal(error, `read the log of pod '${name}'`); });
      line = String(log).slice(0, String(log).indexOf('\n') + 1) || ' ';
    }
    try {
      const answer = JSON.parse(line) as { ready: boolean; error?: string; display: string };
      if (answer.ready) return answer;
      throw new SandboxError(`The sandbox in pod '${name}' failed to start: ${answer.error}`);
    } catch (error) {
      if (error instanceof SandboxError) throw error;
      throw new SandboxError(`The sandbox's pod '${name}' is ready, but its log does not start with the supervisor's ready line: ${JSON.stringify(line.trim().slice(0, 200))}.`);
    }
  }

  /** Where this process reaches a pod's agent: its IP, or a port-forward from a port on this machine's loopback. */
  private async reach(id: string, name: string, podIP: string | undefined, port: number): Promise<{ host?: string; port: number }> {
    if (this.access() === 'pod-ip') {
      if (!podIP) throw new SandboxError(`The sandbox's pod '${name}' has no IP yet.`);
      return { host: podIP, port };
    }
    const existing = this.forwards.get(id);
    if (existing) return { port: (existing.address() as net.AddressInfo).port };
    const { lib, config, namespace } = this.cluster();
    const forward = new lib.PortForward(config);
    const server = net.createServer((socket) => {
      forward.portForward(namespace, name, [port], socket, null, socket).catch(() => socket.destroy());
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    server.unref();
    this.forwards.set(id, server);
    return { port: (server.address() as net.AddressInfo).port };
  }

  private closeForward(id: string): void {
    this.forwards.get(id)?.close();
    this.forwards.delete(id);
  }

  /** Marks a sandbox stopped the moment its pod ends or is deleted, whoever ended it. */
  private follow(): void {
    if (this.watching) return;
    const { lib, config, namespace } = this.cluster();
    const watching = new lib.Watch(config).watch(`/api/v1/namespaces/${namespace}/pods`, { labelSelector: this.selector() }, (type, pod: K8s.V1Pod) => {
      const id = pod.metadata?.labels?.[SANDBOX_LABEL];
      if (!id) return;
      const phase = pod.status?.phase;
      if (type === 'DELETED') this.registry.markStopped(id, 'its pod was deleted');
      else if (phase === 'Succeeded' || phase === 'Failed') {
        this.registry.markStopped(id, stopReason(pod));
        // A pod that ended stays listed until it is deleted: nothing of a sandbox outlives it.
        if (!pod.metadata?.deletionTimestamp) void this.deletePod(pod.metadata!.name!);
      }
    }, () => {
      // The API server ends watches now and then: the next call that needs it starts another.
      if (this.watching === watching) this.watching = null;
    });
    this.watching = watching;
    watching.catch(() => { if (this.watching === watching) this.watching = null; });
  }

  private async readPod(name: string): Promise<K8s.V1Pod | null> {
    const { core, namespace } = this.cluster();
    try {
      return await core.readNamespacedPod({ name, namespace });
    } catch (error) {
      if ((error as { code?: number }).code === 404) return null;
      throw this.refusal(error, `read pod '${name}'`);
    }
  }

  private async deletePod(name: string): Promise<void> {
    const { core, namespace } = this.cluster();
    await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 5 }).catch(() => undefined);
  }

  /** What the API server refused, and what to do about it: the quota that is full, the verb the Role lacks. */
  private refusal(error: unknown, what: string): SandboxError {
    const status = apiStatus(error);
    if (status?.code === 403 && /exceeded quota/.test(status.message)) {
      return new SandboxError(`The cluster refused to ${what}: ${status.message}. The namespace's ResourceQuota caps how many sandboxes run at once; wait for one to end, or raise the quota (deploy/kubernetes/resource-quota.yaml).`);
    }
    if (status?.code === 403) return new SandboxError(`The cluster refused to ${what}: ${status.message}. Give the server's ServiceAccount the Role in deploy/kubernetes/role.yaml.`);
    if (status?.code === 401) return new SandboxError(`The cluster refused to ${what}: the kubeconfig's credentials were not accepted (401). Check the user in KUBECONFIG, or the server's ServiceAccount token.`);
    if (status?.code === 404) return new SandboxError(`The cluster refused to ${what}: ${status.message}. Create the namespace (deploy/kubernetes/namespace.yaml), or name another with GLANCE_KUBERNETES_NAMESPACE.`);
    if (status) return new SandboxError(`The cluster refused to ${what}: ${status.message} (${status.code}).`);
    return new SandboxError(`The kubernetes backend could not ${what}: ${(error as Error).message}. Check that the API server in KUBECONFIG (or the cluster this server runs in) is reachable.`);
  }
}

/** The API server's Status for a refused call (its code and message), when the error carries one. */
function apiStatus(error: unknown): { code: number; message: string } | null {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'number') return null;
  const body = (error as { body?: unknown }).body;
  let message = '';
  try {
    message = (typeof body === 'string' ? JSON.parse(body) : body as { message?: string })?.message ?? '';
  } catch {
    message = String(body ?? '');
  }
  return { code, message: message || `HTTP ${code}` };
}

/** Why a pod is not running, in its own terms: its phase, its reason, its container's exit. */
function stopReason(pod: K8s.V1Pod): string {
  const phase = pod.status?.phase ?? 'gone';
  if (pod.status?.reason === 'DeadlineExceeded') return 'past its deadline (activeDeadlineSeconds)';
  const terminated = pod.status?.containerStatuses?.[0]?.state?.terminated;
  if (terminated) return `its pod ${phase} (exit code ${terminated.exitCode}${terminated.reason ? `, ${terminated.reason}` : ''})`;
  return `its pod is ${phase}${pod.status?.reason ? ` (${pod.status.reason})` : ''}`;
}

/** The port a sandbox pod's agent listens on, as its pod declares it. */
function agentPortOf(pod: K8s.V1Pod): number {
  const port = pod.spec?.containers?.[0]?.ports?.find((p) => p.name === 'agent')?.containerPort;
  if (!port) throw new Error(`its pod declares no agent port`);
  return port;
}
