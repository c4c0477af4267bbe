import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { ChildProcess, spawn, SpawnOptions } from 'child_process';
import { isSandboxProcess, reapLeftovers } from '../../lib/sandbox/local-provider';
import { processIdentity } from '../../lib/sandbox/process-identity';
import { SandboxRecord } from '../../lib/sandbox/registry';
import { sleep, waitFor } from '../../lib/util/wait';

// Reaping trusts a recorded pid only while it is still the sandbox's process:
// pids are reused, and a SIGKILL to a stranger's process group is not undone.

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-reap-'));
const started: ChildProcess[] = [];

after(() => {
  for (const child of started) {
    if (child.exitCode === null && child.signalCode === null) {
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ }
    }
  }
  fs.rmSync(stateDir, { recursive: true, force: true });
});

/** A process leading its own group, as the supervisor and Xvfb do. */
function startGroup(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: 'ignore', ...options, detached: true });
  started.push(child);
  return child;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Gone, or a zombie waiting for whoever adopted it. */
function dead(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

function record(id: string, pid: number, extra: Partial<SandboxRecord> = {}): SandboxRecord {
  return {
    id, pid, xvfbPid: pid, display: ':4242', port: 1, token: 't', os: 'linux', width: 800, height: 600,
    vncPort: null, workDir: path.join(stateDir, 'sandboxes', id), createdAt: new Date().toISOString(), state: 'running',
    ...extra,
  };
}

test('a pid that now belongs to another process is not signalled', async () => {
  const stranger = startGroup('sleep', ['30']);
  const now = processIdentity(stranger.pid!)!;
  assert.ok(now, 'the process is in /proc');
  const wrongStart = record('sbx-aaaaaaaaaaaa', stranger.pid!, {
    identity: { agent: { ...now, startTime: now.startTime - 1 }, xvfb: { ...now, startTime: now.startTime - 1 } },
  });
  const wrongCommand = record('sbx-bbbbbbbbbbbb', stranger.pid!, {
    identity: { agent: { ...now, cmdline: ['node', 'main.ts'] }, xvfb: { ...now, cmdline: ['Xvfb', '-displayfd', '3'] } },
  });
  // Written by a version that kept no identity: a plain `sleep` is not clearly ours.
  const legacy = record('sbx-cccccccccccc', stranger.pid!);

  for (const r of [wrongStart, wrongCommand, legacy]) {
    assert.equal(isSandboxProcess(r, 'agent'), false, r.id);
    assert.equal(isSandboxProcess(r, 'xvfb'), false, r.id);
    reapLeftovers(r);
  }
  await sleep(200);
  assert.ok(running(stranger), 'the unrelated process still runs');
});

test('a leftover that is the recorded process is reaped with its whole group', async () => {
  // The group's leader prints the pid of a second member, which must go too.
  const leader = startGroup('sh', ['-c', 'sleep 30 & echo $!; wait'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const member = Number(await new Promise<string>((resolve) => leader.stdout!.once('data', (d) => resolve(String(d)))));
  const identity = processIdentity(leader.pid!)!;
  const leftover = record('sbx-dddddddddddd', leader.pid!, { xvfbPid: 0, identity: { agent: identity, xvfb: identity } });

  assert.equal(isSandboxProcess(leftover, 'agent'), true);
  reapLeftovers(leftover);
  await waitFor('the leftover group to be killed', () => !running(leader) && dead(member), { timeoutMs: 3000 });
});

test('an older record reaps its supervisor only when the process clearly is that sandbox\'s', async () => {
  const id = 'sbx-eeeeeeeeeeee';
  const workDir = path.join(stateDir, 'sandboxes', id);
  fs.mkdirSync(workDir, { recursive: true });
  const log = fs.openSync(path.join(workDir, 'agent.log'), 'a');
  // Looks like a supervisor on the command line, and writes its stderr to the sandbox's log as one does.
  const supervisor = startGroup(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '/opt/glance/lib/sandbox/agent/main.ts'], {
    stdio: ['ignore', 'ignore', log],
  });
  fs.closeSync(log);
  await waitFor('the supervisor to start', () => processIdentity(supervisor.pid!)?.cmdline.includes('-e'), { timeoutMs: 3000 });

  const otherSandbox = record('sbx-ffffffffffff', supervisor.pid!);
  assert.equal(isSandboxProcess(otherSandbox, 'agent'), false, 'its log belongs to another sandbox');
  assert.equal(isSandboxProcess(otherSandbox, 'xvfb'), false, 'a node process is no X server');
  reapLeftovers(otherSandbox);
  await sleep(200);
  assert.ok(running(supervisor));

  const own = record(id, supervisor.pid!);
  assert.equal(isSandboxProcess(own, 'agent'), true);
  reapLeftovers(own);
  await waitFor('the old supervisor to be reaped', () => !running(supervisor), { timeoutMs: 3000 });
});
