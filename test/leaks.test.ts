import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import { waitFor } from '../lib/util/wait';
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { desktopProcesses, ownedTempFolders } = require('./helpers/processes.js');

// Runs last (scripts/test.js orders it so): every desktop process the suite
// started must be gone, and no shared-memory frame file or sandbox folder may be left behind.
test('the suite leaves no Xvfb, window manager, Chromium, VNC, ffmpeg, D-Bus, AT-SPI or agent process behind', async (t) => {
  const baselineFile = process.env.GLANCE_TEST_BASELINE;
  if (!baselineFile) return t.skip('run through npm test, which records the processes running before the suite');
  const before: Record<string, string> = JSON.parse(fs.readFileSync(baselineFile, 'utf8'));
  const leftovers = () => Object.entries(desktopProcesses() as Record<string, string>).filter(([pid]) => !(pid in before));
  try {
    await waitFor('sandbox processes to exit', () => leftovers().length === 0, { timeoutMs: 8000, intervalMs: 200 });
  } catch {
    /* reported below */
  }
  assert.deepEqual(leftovers().map(([pid, cmd]) => `${pid} ${cmd.slice(0, 120)}`), []);
});

test('no shared-memory frame file is left in /dev/shm', () => {
  const frames = fs.existsSync('/dev/shm') ? fs.readdirSync('/dev/shm').filter((f) => /^glance-.*\.frame$/.test(f)) : [];
  assert.deepEqual(frames, []);
});

test('no sandbox, self-hosted agent or browser singleton folder the suite made is left in the temp folder', (t) => {
  const baselineFile = process.env.GLANCE_TEST_FOLDERS_BASELINE;
  if (!baselineFile) return t.skip('run through npm test, which records the folders there before the suite');
  const before = new Set<string>(JSON.parse(fs.readFileSync(baselineFile, 'utf8')));
  assert.deepEqual((ownedTempFolders() as string[]).filter((name) => !before.has(name)), []);
});
