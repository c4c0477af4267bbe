import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { spawn, spawnSync } from 'child_process';
import { frameFilePath, removeStaleFrameFiles } from '../../lib/sandbox/frame-files';

// Frame files live in /dev/shm and outlive a process that crashed; the next
// start removes them. A scratch folder stands in for /dev/shm here, so that
// the suite's own live frames are never part of the experiment.

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-frames-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const REGISTER = path.resolve(__dirname, '../../lib/runtime/register.js');
const FRAME_FILES = path.resolve(__dirname, '../../lib/sandbox/frame-files');

/** A pid that no process has: one that ran and was reaped. */
function deadPid(): number {
  return spawnSync('true').pid;
}

test('a crashed process\'s frame file is removed at the next start; a live one\'s is kept', async () => {
  // A client makes its frame file as Glance does, then dies without cleaning up.
  const script = `
    const p = require(${JSON.stringify(FRAME_FILES)}).frameFilePath('client', '0123abcd', ${JSON.stringify(dir)});
    require('fs').writeFileSync(p, Buffer.alloc(4096), { mode: 0o600 });
    process.stdout.write(p + '\\n');
    setInterval(() => {}, 1000);`;
  const client = spawn(process.execPath, ['-r', REGISTER, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let crashed: string;
  try {
    crashed = (await new Promise<string>((resolve, reject) => {
      client.stdout!.once('data', (d) => resolve(String(d)));
      client.once('exit', (code) => reject(new Error(`the client exited early (${code})`)));
    })).trim();
    assert.match(path.basename(crashed), new RegExp(`^glance-client-${client.pid}-0123abcd\\.frame$`));
    assert.deepEqual(removeStaleFrameFiles(dir), [], 'kept while its process runs');
    assert.ok(fs.existsSync(crashed));
  } finally {
    client.kill('SIGKILL');
  }
  await new Promise((resolve) => (client.exitCode === null && client.signalCode === null ? client.once('exit', resolve) : resolve(null)));

  const live = frameFilePath('agent', String(Date.now()), dir);
  fs.writeFileSync(live, Buffer.alloc(4096));
  assert.deepEqual(removeStaleFrameFiles(dir), [crashed]);
  assert.equal(fs.existsSync(crashed), false);
  assert.ok(fs.existsSync(live), 'this process\'s own frame is kept');
});

test('only files named as Glance names its frames are touched', () => {
  const pid = deadPid();
  const strangers = [
    `node-x11-shm-${pid}-0`, // the x11 library's own (anonymous once attached)
    `glance-client-${pid}-0123abcd.png`,
    `glance-other-${pid}-0123abcd.frame`,
    `glance-client-${pid}.frame`,
  ];
  for (const name of strangers) fs.writeFileSync(path.join(dir, name), '');
  fs.mkdirSync(path.join(dir, `glance-agent-${pid}-1.frame`));

  assert.deepEqual(removeStaleFrameFiles(dir), []);
  for (const name of strangers) assert.ok(fs.existsSync(path.join(dir, name)), name);
});

test('a missing frame folder is nothing to clean', () => {
  assert.deepEqual(removeStaleFrameFiles(path.join(dir, 'absent')), []);
});
