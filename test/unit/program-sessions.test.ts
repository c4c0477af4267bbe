import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, ChildProcess } from 'child_process';
import fs from 'fs';
import { ProgramSessions } from '../../lib/sandbox/agent/program-sessions';
import { procStat } from '../../lib/sandbox/process-identity';
import { waitFor } from '../../lib/util/wait';

const started: ChildProcess[] = [];
after(() => { for (const child of started) if (child.pid) try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } });

/** A program in a session of its own (as a sandbox starts them), with a child in the same session; resolves to both pids. */
async function programWithChild(): Promise<{ leader: number; child: number }> {
  const program = spawn('sh', ['-c', 'sleep 60 & wait'], { detached: true, stdio: 'ignore' });
  started.push(program);
  const leader = program.pid!;
  const child = await waitFor('the program\'s child', async () => fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number).find((pid) => procStat(pid)?.ppid === leader), { timeoutMs: 5000, intervalMs: 10 });
  return { leader, child };
}

test('a program\'s processes are held by its session, and processes of other sessions are not', async () => {
  const { leader, child } = await programWithChild();
  const sessions = new ProgramSessions();
  sessions.add(leader);
  assert.equal(sessions.holds(procStat(leader)!), true, 'the leader');
  assert.equal(sessions.holds(procStat(child)!), true, 'its child, in its session');
  assert.equal(sessions.holds(procStat(process.pid)!), false, 'a process of another session');
  sessions.keepOnly(null);
  assert.equal(sessions.holds(procStat(child)!), false, 'forgotten at the reset');
});

test('a session id that a reused pid now leads is not taken for the program\'s, nor is a process older than the program', async () => {
  const { leader, child } = await programWithChild();
  const sessions = new ProgramSessions();
  // The session noted was led by an earlier holder of the same pid: it started before the process that holds the pid now.
  const now = procStat(leader)!;
  sessions.add(leader, now.startTime - 1);
  assert.equal(sessions.holds(procStat(child)!), false, 'the live leader is another process than the one noted');
  // A process that started before the program's leader cannot be in its session, whatever its session id says.
  const other = new ProgramSessions();
  other.add(leader);
  assert.equal(other.holds({ ...procStat(process.pid)!, session: leader }), false);
});
