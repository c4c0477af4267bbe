import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'child_process';
import { processTree } from '../../lib/sandbox/agent/program-reaper';
import { procStat } from '../../lib/sandbox/process-identity';
import { waitFor } from '../../lib/util/wait';

// The kept browser's processes are known by walking down from its own: children, and their children.
test('processTree holds a process, its children and their children, and nothing else', async () => {
  const root = spawn('sh', ['-c', 'sleep 30 & sh -c "sleep 30 & wait" & wait'], { stdio: 'ignore', detached: true });
  try {
    // Four below the root: a sleep, an inner shell, and the inner shell's sleep.
    const tree = await waitFor('the shells to start their sleeps', () => {
      const found = processTree(root.pid!);
      return found.size === 4 ? found : undefined;
    }, { timeoutMs: 5000, intervalMs: 20 });
    assert.ok(tree.has(root.pid!));
    for (const pid of tree) if (pid !== root.pid) assert.ok(tree.has(procStat(pid)!.ppid), `${pid}'s parent is in the tree`);
    assert.ok(!tree.has(process.pid), 'the test runner is not under the shell');
  } finally {
    process.kill(-root.pid!, 'SIGKILL');
  }
});
