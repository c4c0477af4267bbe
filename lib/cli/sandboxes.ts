import { AgentClient } from '../sandbox/agent-client';
import { sandboxAlive, SandboxRegistry } from '../sandbox/registry';
import { localSandboxEnded, reapLeftovers } from '../sandbox/local-provider';
import { parseFlags } from './flags';
import { defaultStateDir } from '../config/state-dir';

/** `glance sandboxes`: list, stop or prune the local sandboxes recorded in .glance/sandboxes. */
export async function sandboxesCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  const registry = new SandboxRegistry(defaultStateDir());
  const [action = 'list', id] = words;
  if (action === 'list') {
    const records = registry.list();
    if (!records.length) console.log('No sandboxes recorded.');
    for (const r of records) {
      const state = r.state === 'running' && !sandboxAlive(r) ? 'gone' : r.state;
      console.log(`${r.id}  ${state.padEnd(8)} ${r.width}x${r.height}  display ${r.display}  port ${r.port}  since ${r.createdAt}${r.stopReason ? `  (${r.stopReason})` : ''}`);
    }
    return 0;
  }
  if (action === 'stop') {
    const targets = flags.all ? registry.list().filter((r) => r.state === 'running') : id ? [registry.read(id)] : [];
    if (!targets.length || targets.includes(null)) {
      console.error(id ? `No sandbox with id '${id}'. See 'glance sandboxes list'.` : "Name a sandbox id, or use 'stop --all'.");
      return 1;
    }
    for (const record of targets) {
      const agent = new AgentClient({ host: '127.0.0.1', port: record!.port, token: record!.token });
      try {
        await agent.call('POST', '/terminate', undefined, 5_000);
        await localSandboxEnded(registry, record!.id);
        console.log(`Stopped ${record!.id}.`);
      } catch {
        reapLeftovers(record!);
        registry.markStopped(record!.id, 'stopped from the command line');
        console.log(`Stopped ${record!.id} (its agent did not answer).`);
      } finally {
        agent.close();
      }
    }
    return 0;
  }
  if (action === 'prune') {
    registry.prune(Date.now() + 2 * 24 * 60 * 60 * 1000);
    console.log('Removed the records of stopped sandboxes.');
    return 0;
  }
  console.error(`Unknown sandboxes action '${action}'; use list, stop <id>, stop --all or prune.`);
  return 2;
}
