import { SANDBOX_BACKENDS, SandboxBackendName } from '../config/backends';
import fs from 'fs';
import { InvalidOptionError } from '../config/errors';
import { defaultStateDir } from '../config/state-dir';
import { startServer } from '../server/serve';
import { DEFAULT_SERVER_TOKEN_TTL_MS } from '../server/app';
import { hostPort, knownFlags, parseFlags } from './flags';

const DEFAULT_LISTEN = '127.0.0.1:4790';

/**
 * `glance serve --listen HOST:PORT --state DIR`: the team server. It runs
 * until Ctrl-C or SIGTERM, then closes its routes and engines; sandboxes kept
 * alive go on running and are taken up again by the next start.
 */
export async function serveCommand(args: string[]): Promise<number> {
  const { flags } = parseFlags(args, ['trust-proxy']);
  knownFlags('serve', flags, ['listen', 'state', 'tls-cert', 'tls-key', 'token-ttl', 'retain-days', 'trust-proxy', 'backend']);
  const listen = stringFlag(flags, 'listen') ?? DEFAULT_LISTEN;
  const { host, port } = hostPort('--listen', listen, `${DEFAULT_LISTEN} or 0.0.0.0:4790`);
  const cert = stringFlag(flags, 'tls-cert');
  const key = stringFlag(flags, 'tls-key');
  if (Boolean(cert) !== Boolean(key)) throw new InvalidOptionError(cert ? 'tls-key' : 'tls-cert', 'HTTPS needs both --tls-cert and --tls-key (PEM files).');
  const tls = cert && key ? { cert: readPem('tls-cert', cert), key: readPem('tls-key', key) } : undefined;
  const ttl = stringFlag(flags, 'token-ttl');
  const stateDir = stringFlag(flags, 'state') ?? defaultStateDir();
  const retain = stringFlag(flags, 'retain-days');
  const retainDays = retain === undefined ? undefined : Number(retain);
  if (retainDays !== undefined && !(Number.isInteger(retainDays) && retainDays >= 1)) throw new InvalidOptionError('retain-days', `--retain-days takes a whole number of days, at least 1; got '${retain}'.`);

  const backend = (stringFlag(flags, 'backend') ?? 'local') as SandboxBackendName;
  if (!SANDBOX_BACKENDS.includes(backend)) throw new InvalidOptionError('backend', `--backend takes 'local' (a process per sandbox here), 'docker' (a container per sandbox) or 'kubernetes' (a pod per sandbox, in the cluster of KUBECONFIG or the one the server runs in); got '${backend}'.`);
  const server = await startServer({ host, port, stateDir, tls, tokenTtlMs: ttl ? parseDuration('token-ttl', ttl) : DEFAULT_SERVER_TOKEN_TTL_MS, retainDays, trustProxy: flags['trust-proxy'] === true, backend });
  const { alive, ended } = server.reconciled;
  console.log(`Glance team server on ${server.url} (state in ${stateDir}). ${alive.length} sandbox(es) still running taken up, ${ended.length} found ended.`);
  if (!tls && !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    console.log('Serving plain HTTP beyond loopback: keys and tokens cross the network in clear. Use --tls-cert and --tls-key, or a reverse proxy that speaks HTTPS (docs/server.md).');
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return 0;
}

function stringFlag(flags: Record<string, string | true>, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new InvalidOptionError(name, `--${name} needs a value.`);
  return value;
}

function readPem(flag: string, file: string): string {
  if (!fs.existsSync(file)) throw new InvalidOptionError(flag, `--${flag} ${file}: no such file. Give the path of a PEM file.`);
  return fs.readFileSync(file, 'utf8');
}

/** `90s`, `30m`, `1h`, or a number of seconds. */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+)(s|m|h|d)?$/.exec(text.trim());
  const ms = match ? Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[(match[2] ?? 's') as 's'] : NaN;
  if (!(ms > 0)) throw new InvalidOptionError(flag, `--${flag} takes a duration such as 90s, 30m or 1h; got '${text}'.`);
  return ms;
}
