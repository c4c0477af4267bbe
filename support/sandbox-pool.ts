import type { Client } from '../lib/client/client';
import type { ClientOptions } from '../lib/config/options';
import { resolveClientOptions } from '../lib/config/options';

/** A sandbox started ahead stays this long for a scenario to take it, then ends itself. */
export const AHEAD_KEEP_ALIVE_MS = 60_000;

/**
 * Sandboxes started before a scenario asks for one: the worker's first while
 * Cucumber still loads, and with `warmSandboxes` the next scenarios' while
 * the current one runs. A scenario takes one started with its own settings;
 * one started with other settings (a tag or a Background asked for another
 * resolution) is stopped, and the scenario starts its own as before.
 */
export class SandboxPool {
  private ahead: { key: string; sandbox: Promise<string | null> }[] = [];
  private readonly stopping = new Set<Promise<void>>();
  /** Starts that wait for their settings: drain() must see what they start. */
  private readonly planned = new Set<Promise<void>>();

  constructor(private readonly newClient: (options: ClientOptions) => Client) {}

  /** Starts a sandbox for a scenario with these client options, unless they do not start one of their own. */
  startAhead(options: ClientOptions): void {
    const key = poolKey(options);
    if (key === null) return;
    const client = this.newClient({ ...options, logging: false, analytics: false, dashcam: false });
    const sandbox = (async () => {
      await client.auth();
      const { instanceId } = await client.connect({ newSandbox: true, keepAlive: AHEAD_KEEP_ALIVE_MS });
      await client.disconnect();
      return instanceId;
    })().catch(() => null); // the scenario then starts its own, and its connect reports what is wrong
    this.ahead.push({ key, sandbox });
  }

  /** Starts a sandbox once `options` are known (null: none is wanted). */
  startAheadOnce(options: Promise<ClientOptions | null>): void {
    const started: Promise<void> = options.then((o) => { if (o) this.startAhead(o); }, () => undefined)
      .finally(() => this.planned.delete(started));
    this.planned.add(started);
  }

  /** Starts sandboxes like `options` until `count` wait for a scenario. */
  fill(options: ClientOptions, count: number): void {
    const key = poolKey(options);
    for (let waiting = this.ahead.filter((a) => a.key === key).length; key !== null && waiting < count; waiting++) this.startAhead(options);
  }

  /** The id of a sandbox started for these options (null when there is none); any started for other options is stopped. */
  async take(options: ClientOptions): Promise<string | null> {
    await Promise.all(this.planned);
    const key = poolKey(options);
    const matching = this.ahead.findIndex((a) => a.key === key);
    const taken = matching >= 0 ? this.ahead[matching] : null;
    for (const other of this.ahead.filter((a) => a.key !== key)) this.stopLater(other.sandbox);
    this.ahead = this.ahead.filter((a) => a.key === key && a !== taken);
    return taken ? taken.sandbox : null;
  }

  /** Stops every sandbox still waiting, and waits for the stops under way. */
  async drain(): Promise<void> {
    await Promise.all(this.planned);
    for (const { sandbox } of this.ahead) this.stopLater(sandbox);
    this.ahead = [];
    await Promise.all(this.stopping);
  }

  /** Ends a sandbox now rather than at the end of its keepAlive. */
  async stop(id: string): Promise<void> {
    const client = this.newClient({ sandboxId: id, preview: 'none', logging: false, analytics: false, dashcam: false });
    try {
      await client.auth();
      await client.connect({ keepAlive: 0 });
    } catch {
      return; // already gone
    }
    await client.disconnect();
  }

  private stopLater(sandbox: Promise<string | null>): void {
    const stopped = sandbox.then((id) => (id ? this.stop(id) : undefined)).finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }
}

/**
 * What a started sandbox must match to serve a scenario: the settings a
 * sandbox starts with. Null for options that do not start a local sandbox
 * (an agent's address, a sandbox to rejoin, another OS) or that show a
 * preview, which opens when the scenario connects.
 */
function poolKey(options: ClientOptions): string | null {
  let o: ReturnType<typeof resolveClientOptions>;
  try {
    o = resolveClientOptions(options);
  } catch {
    return null; // the scenario's own connect reports the bad option
  }
  if (o.ip || o.sandboxId || o.reconnect || o.apiRoot || o.os !== 'linux' || o.preview !== 'none') return null;
  return sandboxKey(o);
}

/** What a local sandbox is started with and keeps for its life: clients alike in it can take turns in one. */
export function sandboxKey(o: ReturnType<typeof resolveClientOptions>): string {
  return JSON.stringify([o.stateDir, o.resolution, o.environment, o.sandboxHome, o.runAsRoot, o.preview]);
}

/** Joins a running sandbox as a fresh one: what the last user left is closed, and provisioning runs again. False when it is gone. */
export async function joinFresh(client: Client, sandboxId: string, keepAlive: number): Promise<boolean> {
  try {
    await client.connect({ sandboxId, keepAlive });
  } catch {
    return false;
  }
  await client.resetApps();
  return true;
}
