import type { ClientOptions } from '../lib/config/options';
import { InvalidOptionError } from '../lib/config/errors';

/**
 * A scenario's Glance settings, from (in rising priority) the cucumber
 * config's worldParameters.glance, GLANCE_* environment variables, and the
 * scenario's tags.
 */
export interface ScenarioSettings {
  client: ClientOptions;
  /** ms the sandbox stays after the scenario (0 unless reused or tagged). */
  keepAlive: number;
  /** Reuse one sandbox per worker across scenarios. */
  reuseSandbox: boolean;
  /** Without reuseSandbox: how many sandboxes wait, started, for the next scenarios (0: none). */
  warmSandboxes: number;
  /** Relative URLs in "I open ... in the browser" resolve against it. */
  baseUrl?: string;
  /** Default find options for every step of the scenario (@zoom). */
  zoom: boolean;
  /** Rejoin this sandbox (GLANCE_SANDBOX_ID, printed after a failure with debugOnFailure). */
  sandboxId?: string;
}

export interface GlanceParameters {
  glance?: Partial<ClientOptions> & { reuseSandbox?: boolean; warmSandboxes?: number; baseUrl?: string; keepAlive?: number; zoom?: boolean };
}

const bool = (name: string, value: string): boolean => {
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new InvalidOptionError(name, `${name} is '${value}'; use true or false.`);
};

const int = (name: string, value: string, unit = 'milliseconds'): number => {
  if (!/^\d+$/.test(value)) throw new InvalidOptionError(name, `${name} is '${value}'; use a whole number of ${unit}.`);
  return Number(value);
};

/** Sandboxes cost memory (see the docs), so the warm pool stays small. */
const MAX_WARM_SANDBOXES = 4;

const warmCount = (name: string, value: unknown): number => {
  const n = typeof value === 'string' ? int(name, value, 'sandboxes') : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > MAX_WARM_SANDBOXES) {
    throw new InvalidOptionError(name, `${name} is ${JSON.stringify(value)}; use a whole number from 0 to ${MAX_WARM_SANDBOXES} (sandboxes started ahead for the next scenarios).`);
  }
  return n;
};

export function scenarioSettings(parameters: GlanceParameters, env: NodeJS.ProcessEnv, tags: string[]): ScenarioSettings {
  const { reuseSandbox = false, warmSandboxes = 0, baseUrl, keepAlive, zoom = false, ...client } = parameters.glance ?? {};
  const s: ScenarioSettings = {
    client: { preview: 'none', logging: false, ...client }, keepAlive: keepAlive ?? 0, reuseSandbox,
    warmSandboxes: warmCount('worldParameters.glance.warmSandboxes', warmSandboxes), baseUrl, zoom,
  };

  // Environment.
  if (env.GLANCE_OS) s.client.os = env.GLANCE_OS as ClientOptions['os'];
  if (env.GLANCE_RESOLUTION) s.client.resolution = env.GLANCE_RESOLUTION;
  if (env.GLANCE_KEEP_ALIVE) s.keepAlive = int('GLANCE_KEEP_ALIVE', env.GLANCE_KEEP_ALIVE);
  if (env.GLANCE_REUSE_SANDBOX) s.reuseSandbox = bool('GLANCE_REUSE_SANDBOX', env.GLANCE_REUSE_SANDBOX);
  if (env.GLANCE_WARM_SANDBOXES) s.warmSandboxes = warmCount('GLANCE_WARM_SANDBOXES', env.GLANCE_WARM_SANDBOXES);
  if (env.GLANCE_DEBUG_ON_FAILURE) s.client.debugOnFailure = bool('GLANCE_DEBUG_ON_FAILURE', env.GLANCE_DEBUG_ON_FAILURE);
  if (env.GLANCE_AUTO_SCREENSHOTS) s.client.autoScreenshots = bool('GLANCE_AUTO_SCREENSHOTS', env.GLANCE_AUTO_SCREENSHOTS);
  if (env.GLANCE_VERIFY) s.client.verify = bool('GLANCE_VERIFY', env.GLANCE_VERIFY);
  if (env.GLANCE_ZOOM) s.zoom = bool('GLANCE_ZOOM', env.GLANCE_ZOOM);
  if (env.GLANCE_CACHE) s.client.cache = bool('GLANCE_CACHE', env.GLANCE_CACHE);
  if (env.GLANCE_CACHE_KEY) s.client.cacheKey = env.GLANCE_CACHE_KEY;
  if (env.GLANCE_BASE_URL) s.baseUrl = env.GLANCE_BASE_URL;
  if (env.GLANCE_SANDBOX_ID) s.sandboxId = env.GLANCE_SANDBOX_ID;

  // Tags.
  for (const tag of tags) {
    const [name, value] = tag.replace(/^@/, '').split(/:(.*)/s);
    switch (name) {
      case 'os': s.client.os = value as ClientOptions['os']; break;
      case 'resolution': s.client.resolution = value; break;
      case 'keepAlive': s.keepAlive = int('@keepAlive', value); break;
      case 'zoom': s.zoom = true; break;
      case 'verify': s.client.verify = true; break;
      case 'no-cache': s.client.cache = false; break;
      case 'cacheKey': s.client.cacheKey = value; break;
      case 'reconnect': s.client.reconnect = true; break;
      case 'debugOnFailure': s.client.debugOnFailure = true; break;
      default: break; // other tags belong to the project
    }
  }
  return s;
}
