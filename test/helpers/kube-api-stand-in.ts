import fs from 'fs';
import os from 'os';
import path from 'path';
import https from 'https';
import net from 'net';
import { execFileSync } from 'child_process';
import { randomUUID } from 'crypto';
import type Docker from 'dockerode';

/**
 * A stand-in for a Kubernetes API server, for the kubernetes backend's tests:
 * no cluster runs here. It answers the calls the backend makes (pods create,
 * get, list, watch, delete and log) over HTTPS with a bearer token, with the
 * objects and Status errors of the Kubernetes API reference, and plays the
 * kubelet: each pod runs as a Docker container of its image, on the host's
 * network, so its IP is 127.0.0.1. It probes readiness (tcpSocket), enforces
 * activeDeadlineSeconds, and refuses a pod beyond its ResourceQuota as the
 * real admission does. Port-forward is not answered (no streaming).
 */

/** The label the stand-in puts on the containers that play its pods, with its own id: they are all removed at close. */
export const STAND_IN_LABEL = 'glance.kube-stand-in';

interface Pod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: Record<string, any>;
  spec: Record<string, any>;
  status: Record<string, any>;
}

export interface KubeApiStandIn {
  url: string;
  /** A kubeconfig file for this server (its CA, a token, and a context with the namespace). */
  kubeconfig: string;
  namespace: string;
  /** The pods as the API server holds them now. */
  pods(): Pod[];
  /** Kills a pod's container, as a node that lost it would (the pod fails with exit code 137). */
  /** Kills the pod's container; resolves once it is dead. */
  killPod(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface StandInOptions {
  /** The namespace's ResourceQuota on pods (hard: pods); none when unset. */
  quotaPods?: number;
  /** The token the server accepts (default: the one in its kubeconfig). */
  acceptToken?: string;
}

const NAMESPACE = 'glance';

export async function kubeApiStandIn(options: StandInOptions = {}): Promise<KubeApiStandIn> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kube-stand-in-'));
  const { cert, key } = selfSignedCertificate(dir);
  const token = `stand-in-${randomUUID()}`;
  const accepted = options.acceptToken ?? token;
  const id = randomUUID();
  const pods = new Map<string, Pod>();
  const containers = new Map<string, Docker.Container>();
  const timers = new Set<NodeJS.Timeout>();
  const watchers = new Set<{ match: (pod: Pod) => boolean; send: (type: string, pod: Pod) => void; end: () => void }>();
  let docker: Docker | null = null;
  let version = 1;
  const engine = () => (docker ??= new (require('dockerode') as typeof Docker)());

  const changed = (type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod) => {
    pod.metadata.resourceVersion = String(++version);
    for (const watcher of watchers) if (watcher.match(pod)) watcher.send(type, pod);
  };
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => { timers.delete(timer); fn(); }, ms);
    timers.add(timer);
  };
  const terminal = (pod: Pod) => pod.status.phase === 'Succeeded' || pod.status.phase === 'Failed';

  /** The kubelet's part: runs the pod's one container, probes it, and records how it ends. */
  const run = async (pod: Pod) => {
    const spec = pod.spec.containers[0];
    const env = (spec.env ?? []).map((e: any) => `${e.name}=${e.valueFrom?.fieldRef?.fieldPath === 'status.podIP' ? '127.0.0.1' : e.value ?? ''}`);
    const container = await engine().createContainer({
      Image: spec.image,
      name: `kube-stand-in-${pod.metadata.name}`,
      Env: env,
      Labels: { [STAND_IN_LABEL]: id, 'io.kubernetes.pod.name': pod.metadata.name },
      HostConfig: {
        NetworkMode: 'host',
        Init: true,
        ShmSize: 512 * 1024 ** 2,
        Memory: memoryBytes(spec.resources?.limits?.memory),
        NanoCpus: Number(spec.resources?.limits?.cpu ?? 2) * 1e9,
      },
    });
    containers.set(pod.metadata.name, container);
    await container.start();
    const startedAt = new Date().toISOString();
    Object.assign(pod.status, {
      phase: 'Running', podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }], hostIP: '127.0.0.1', startTime: startedAt,
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'False' }],
      containerStatuses: [{ name: spec.name, image: spec.image, ready: false, restartCount: 0, started: true, state: { running: { startedAt } } }],
    });
    changed('MODIFIED', pod);
    void container.wait().then((result: { StatusCode: number }) => {
      if (!pods.has(pod.metadata.name) || terminal(pod)) return;
      const code = result.StatusCode;
      Object.assign(pod.status, { phase: code === 0 ? 'Succeeded' : 'Failed' });
      setReady(pod, false);
      pod.status.containerStatuses[0].state = { terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', startedAt, finishedAt: new Date().toISOString() } };
      changed('MODIFIED', pod);
    }, () => undefined);
    probe(pod);
    const deadline = pod.spec.activeDeadlineSeconds;
    if (deadline) {
      later(deadline * 1000, () => {
        if (!pods.has(pod.metadata.name) || terminal(pod)) return;
        Object.assign(pod.status, { phase: 'Failed', reason: 'DeadlineExceeded', message: `Pod was active on the node longer than the specified deadline` });
        setReady(pod, false);
        changed('MODIFIED', pod);
        void container.kill().catch(() => undefined);
      });
    }
  };
  const setReady = (pod: Pod, ready: boolean) => {
    for (const condition of pod.status.conditions ?? []) if (condition.type === 'Ready') condition.status = ready ? 'True' : 'False';
    if (pod.status.containerStatuses?.[0]) pod.status.containerStatuses[0].ready = ready;
  };
  /** The readiness probe: a tcpSocket check every periodSeconds until it answers. */
  const probe = (pod: Pod) => {
    const check = pod.spec.containers[0].readinessProbe;
    const port = check?.tcpSocket?.port;
    const every = (check?.periodSeconds ?? 10) * 1000;
    const attempt = () => {
      if (!pods.has(pod.metadata.name) || pod.status.phase !== 'Running') return;
      if (!port) {
        setReady(pod, true);
        changed('MODIFIED', pod);
        return;
      }
      const socket = net.connect(port, pod.status.podIP);
      socket.once('connect', () => {
        socket.destroy();
        if (pod.status.phase !== 'Running') return;
        setReady(pod, true);
        changed('MODIFIED', pod);
      });
      socket.once('error', () => later(every, attempt));
    };
    attempt();
  };

  const remove = async (pod: Pod, graceSeconds: number) => {
    pod.metadata.deletionTimestamp = new Date().toISOString();
    pod.metadata.deletionGracePeriodSeconds = graceSeconds;
    changed('MODIFIED', pod);
    const container = containers.get(pod.metadata.name);
    if (container) {
      await container.stop({ t: graceSeconds }).catch(() => undefined);
      await container.remove({ force: true }).catch(() => undefined);
      containers.delete(pod.metadata.name);
    }
    pods.delete(pod.metadata.name);
    changed('DELETED', pod);
  };

  const server = https.createServer({ cert, key }, (req, res) => {
    let body = '';
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      void handle(req, res, body).catch((error) => send(res, 500, status(500, 'InternalError', String(error?.message ?? error))));
    });
  });

  const handle = async (req: import('http').IncomingMessage, res: import('http').ServerResponse, body: string) => {
    if (req.headers.authorization !== `Bearer ${accepted}`) return send(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    const url = new URL(req.url ?? '/', 'https://stand-in');
    const match = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?(?:\/(log))?$/.exec(url.pathname);
    if (!match) return send(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const [, namespace, name, sub] = match;
    if (namespace !== NAMESPACE) return send(res, 404, status(404, 'NotFound', `namespaces "${namespace}" not found`, { name: namespace, kind: 'namespaces' }));
    const notFound = () => send(res, 404, status(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' }));
    if (!name && req.method === 'POST') return create(res, JSON.parse(body));
    if (!name && req.method === 'GET') {
      const selected = selector(url.searchParams.get('labelSelector'), url.searchParams.get('fieldSelector'));
      if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') return watch(req, res, selected);
      return send(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: String(version) }, items: [...pods.values()].filter(selected) });
    }
    const pod = name ? pods.get(name) : undefined;
    if (!pod) return notFound();
    if (sub === 'log' && req.method === 'GET') return sendLog(res, pod);
    if (!sub && req.method === 'GET') return send(res, 200, pod);
    if (!sub && req.method === 'DELETE') {
      const grace = Number(url.searchParams.get('gracePeriodSeconds') ?? pod.spec.terminationGracePeriodSeconds ?? 30);
      void remove(pod, grace);
      return send(res, 200, pod);
    }
    return send(res, 405, status(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`));
  };

  const create = async (res: import('http').ServerResponse, pod: Pod) => {
    const name = pod?.metadata?.name;
    if (!name || !pod.spec?.containers?.[0]?.image) return send(res, 422, status(422, 'Invalid', `Pod "${name ?? ''}" is invalid: spec.containers[0].image: Required value`));
    if (pods.has(name)) return send(res, 409, status(409, 'AlreadyExists', `pods "${name}" already exists`, { name, kind: 'pods' }));
    const used = [...pods.values()].filter((p) => !terminal(p)).length;
    if (options.quotaPods !== undefined && used + 1 > options.quotaPods) {
      return send(res, 403, status(403, 'Forbidden', `pods "${name}" is forbidden: exceeded quota: glance-sandboxes, requested: pods=1, used: pods=${used}, limited: pods=${options.quotaPods}`, { name, kind: 'pods' }));
    }
    const stored: Pod = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { ...pod.metadata, namespace: NAMESPACE, uid: randomUUID(), creationTimestamp: new Date().toISOString() },
      spec: { ...pod.spec, nodeName: 'stand-in' },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
    };
    pods.set(name, stored);
    changed('ADDED', stored);
    send(res, 201, stored);
    run(stored).catch((error) => {
      Object.assign(stored.status, { phase: 'Failed', reason: 'ContainerCannotRun', message: String(error.message) });
      changed('MODIFIED', stored);
    });
  };

  const watch = (req: import('http').IncomingMessage, res: import('http').ServerResponse, selected: (pod: Pod) => boolean) => {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const watcher = {
      match: selected,
      send: (type: string, pod: Pod) => res.write(`${JSON.stringify({ type, object: pod })}\n`),
      end: () => res.end(),
    };
    // A watch without a resourceVersion starts with every matching object, as ADDED.
    for (const pod of pods.values()) if (selected(pod)) watcher.send('ADDED', pod);
    watchers.add(watcher);
    res.on('close', () => watchers.delete(watcher));
  };

  const sendLog = async (res: import('http').ServerResponse, pod: Pod) => {
    const container = containers.get(pod.metadata.name);
    if (!container) return send(res, 400, status(400, 'BadRequest', `container "${pod.spec.containers[0].name}" in pod "${pod.metadata.name}" is waiting to start: ContainerCreating`));
    const raw = await container.logs({ stdout: true, stderr: true, follow: false }) as unknown as Buffer;
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(demux(raw));
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const kubeconfig = path.join(dir, 'kubeconfig');
  fs.writeFileSync(kubeconfig, [
    'apiVersion: v1', 'kind: Config',
    'clusters:', '- name: stand-in', '  cluster:', `    server: ${url}`, `    certificate-authority-data: ${Buffer.from(cert).toString('base64')}`,
    'users:', '- name: glance', '  user:', `    token: ${token}`,
    'contexts:', '- name: stand-in', '  context:', '    cluster: stand-in', '    user: glance', `    namespace: ${NAMESPACE}`,
    'current-context: stand-in', '',
  ].join('\n'));

  return {
    url,
    kubeconfig,
    namespace: NAMESPACE,
    pods: () => [...pods.values()],
    killPod: async (name) => { await containers.get(name)?.kill().catch(() => undefined); },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const watcher of watchers) watcher.end();
      watchers.clear();
      await Promise.all([...containers.values()].map((c) => c.remove({ force: true }).catch(() => undefined)));
      if (docker) {
        const left = await docker.listContainers({ all: true, filters: { label: [`${STAND_IN_LABEL}=${id}`] } });
        await Promise.all(left.map((c) => docker!.getContainer(c.Id).remove({ force: true }).catch(() => undefined)));
      }
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function send(res: import('http').ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A Status object, as the API server answers a refused call. */
function status(code: number, reason: string, message: string, details?: Record<string, string>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

/** Equality (a=b), inequality (a!=b) and existence (a) terms of a label selector; metadata.name of a field selector. */
function selector(labels: string | null, fields: string | null): (pod: Pod) => boolean {
  const terms = (labels ?? '').split(',').filter(Boolean).map((term) => {
    const [, key, op, value] = /^([^!=]+)(!=|==|=)?(.*)$/.exec(term.trim())!;
    return (pod: Pod) => {
      const has = pod.metadata.labels?.[key];
      if (!op) return has !== undefined;
      return op === '!=' ? has !== value : has === value;
    };
  });
  const named = /^metadata\.name=(.+)$/.exec(fields ?? '')?.[1];
  return (pod) => terms.every((t) => t(pod)) && (!named || pod.metadata.name === named);
}

/** Docker's multiplexed log stream (8-byte frame headers) as plain text. */
function demux(raw: Buffer): string {
  const parts: Buffer[] = [];
  for (let at = 0; at + 8 <= raw.length;) {
    const size = raw.readUInt32BE(at + 4);
    parts.push(raw.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

function memoryBytes(quantity: string | undefined): number {
  const match = /^(\d+)(Gi|Mi)?$/.exec(quantity ?? '');
  if (!match) return 2 * 1024 ** 3;
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 ** 3 : match[2] === 'Mi' ? 1024 ** 2 : 1);
}

/** A certificate for 127.0.0.1, signed by itself: the kubeconfig names it as the cluster's CA. */
function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=kube-apiserver', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
  return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8') };
}
