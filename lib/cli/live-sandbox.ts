import { AgentClient } from '../sandbox/agent-client';
import { processAlive, SandboxRecord, SandboxRegistry } from '../sandbox/registry';
import { defaultStateDir } from '../config/state-dir';

/**
 * The running local sandbox a command looks at: the one named by --sandbox,
 * else the last one connected to, else the only one running.
 */
export function liveSandbox(id: string | true | undefined): { record: SandboxRecord; agent: AgentClient } {
  const registry = new SandboxRegistry(defaultStateDir());
  const running = registry.list().filter((r) => r.state === 'running' && processAlive(r.pid));
  let record: SandboxRecord | undefined;
  if (typeof id === 'string') {
    record = running.find((r) => r.id === id);
    if (!record) throw new Error(`No running sandbox '${id}'. Running: ${running.map((r) => r.id).join(', ') || 'none'} (see 'glance sandboxes list').`);
  } else {
    const last = registry.last();
    record = running.find((r) => r.id === last) ?? (running.length === 1 ? running[0] : undefined);
    if (!record) {
      throw new Error(running.length
        ? `Several sandboxes run (${running.map((r) => r.id).join(', ')}); name one with --sandbox ID.`
        : "No sandbox is running. Start one (a test with keepAlive, or debugOnFailure) and run this while it lives.");
    }
  }
  return { record, agent: new AgentClient({ host: '127.0.0.1', port: record.port, token: record.token }) };
}
