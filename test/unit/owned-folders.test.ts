import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { spawn } from 'child_process';
import { markOwned, removeOrphanedFolders } from '../../lib/sandbox/owned-folders';

// A sandbox's folder or a self-hosted agent's, left by a process that was
// killed outright, goes at the next start of its kind. A scratch folder
// stands in for the system's temp folder, so that live sandboxes' folders
// are never part of the experiment.

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-owned-'));
after(() => fs.rmSync(parent, { recursive: true, force: true }));

const REGISTER = path.resolve(__dirname, '../../lib/runtime/register.js');
const OWNED_FOLDERS = path.resolve(__dirname, '../../lib/sandbox/owned-folders');

function folder(name: string): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'home', 'profile'), 'x'.repeat(4096));
  return dir;
}

test('a killed owner\'s folder is removed by the next sweep; a live owner\'s is kept', async () => {
  const orphan = folder('glance-sbx-000000000001');
  // The owner marks its folder as Glance does, then is killed without cleaning up.
  const script = `require(${JSON.stringify(OWNED_FOLDERS)}).markOwned(${JSON.stringify(orphan)}); process.stdout.write('marked\\n'); setInterval(() => {}, 1000);`;
  const owner = spawn(process.execPath, ['-r', REGISTER, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      owner.stdout!.once('data', () => resolve());
      owner.once('exit', (code) => reject(new Error(`the owner exited early (${code})`)));
    });
    assert.deepEqual(removeOrphanedFolders('glance-sbx-', parent), [], 'kept while its owner runs');
  } finally {
    owner.kill('SIGKILL');
  }
  await new Promise((resolve) => (owner.exitCode === null && owner.signalCode === null ? owner.once('exit', resolve) : resolve(null)));

  const mine = folder('glance-sbx-000000000002');
  markOwned(mine);
  assert.deepEqual(removeOrphanedFolders('glance-sbx-', parent), [orphan]);
  assert.equal(fs.existsSync(orphan), false);
  assert.ok(fs.existsSync(path.join(mine, 'home', 'profile')), 'this process\'s own folder is kept');
});

test('a pid now held by another process does not keep the folder: the note holds its owner\'s start time', () => {
  const reused = folder('glance-agent-reused');
  fs.writeFileSync(path.join(reused, '.glance-owner'), `${process.pid} 1\n`);
  assert.deepEqual(removeOrphanedFolders('glance-agent-', parent), [reused]);
});

test('folders with no note, a note that says nothing, or another prefix are left alone', () => {
  const unmarked = folder('glance-sbx-unmarked');
  const garbled = folder('glance-sbx-garbled');
  fs.writeFileSync(path.join(garbled, '.glance-owner'), 'not a pid\n');
  const other = folder('glance-other-000000000003');
  fs.writeFileSync(path.join(other, '.glance-owner'), '999999999 1\n');
  fs.writeFileSync(path.join(parent, 'glance-sbx-a-file'), '');

  assert.deepEqual(removeOrphanedFolders('glance-sbx-', parent), []);
  for (const dir of [unmarked, garbled, other]) assert.ok(fs.existsSync(dir), dir);
});

test('a missing parent folder is nothing to clean', () => {
  assert.deepEqual(removeOrphanedFolders('glance-sbx-', path.join(parent, 'absent')), []);
});
