import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'child_process';
import { promisify } from 'util';
import fs from 'fs';
import path from 'path';
import { CUCUMBER_BIN, REPO_ROOT, testState } from '../helpers/glance';

// A suite split over two CI machines with `cucumber-js --shard i/2`, each
// shard with its own state folder and sandbox, then joined by `glance report
// --merge` on a third, where the shards' files were downloaded elsewhere than
// where they were written.

const root = fs.mkdtempSync(path.join(path.dirname(testState().stateDir), 'shards-'));
const GLANCE = path.join(REPO_ROOT, 'bin', 'glance.js');
const run = promisify(execFile);

/** Runs shard `index` of 2 as a CI machine would: its own state folder (with its key) and reports folder under `folder`. */
async function runShard(index: number, folder: string): Promise<void> {
  const state = testState();
  fs.mkdirSync(folder, { recursive: true });
  fs.renameSync(state.stateDir, path.join(folder, '.glance'));
  await run(process.execPath, [CUCUMBER_BIN, 'features/desktop-app.feature', '--shard', `${index}/2`, '--format', `message:${path.join(folder, 'reports', 'messages.ndjson')}`], {
    cwd: REPO_ROOT, encoding: 'utf8', timeout: 180_000,
    env: { ...process.env, GLANCE_STATE_DIR: path.join(folder, '.glance'), GLANCE_API_KEY: state.apiKey, GLANCE_RUN_ID: `shards-${process.pid}` },
  });
}

function filesUnder(folder: string, name: RegExp): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((f) => name.test(f)).map((f) => path.join(folder, f));
}

test('two shards of a feature, moved away from where they ran, merge into one report with every scenario and its evidence; a lost file is named', async () => {
  const written = [1, 2].map((i) => path.join(root, `shard-machine-${i}`));
  for (const [i, folder] of written.entries()) await runShard(i + 1, folder);
  // Downloaded as artifacts onto the merging machine: the paths the records name no longer exist.
  const downloaded = written.map((folder, i) => path.join(root, 'artifacts', `shard-${i + 1}`));
  for (const [i, folder] of written.entries()) {
    fs.mkdirSync(path.dirname(downloaded[i]), { recursive: true });
    fs.renameSync(folder, downloaded[i]);
  }
  const pictures = downloaded.map((folder) => filesUnder(path.join(folder, '.glance', 'screenshots'), /\.(png|jpg)$/));
  assert.ok(pictures.every((p) => p.length >= 2), `each shard kept its find screens (${pictures.map((p) => p.length).join(', ')})`);
  const lost = pictures[1][0];
  fs.rmSync(lost);

  const out = path.join(root, 'merged');
  const merged = await run(process.execPath, [GLANCE, 'report', '--merge', ...downloaded.map((f) => path.join(f, 'reports')), '--out', out], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.match(merged.stdout, /\(2 scenario\(s\) of 1 feature\(s\) from 2 shard\(s\)\)/);
  const missing = merged.stderr.split('\n').filter((line) => line.startsWith('  '));
  assert.equal(missing.length, 1, merged.stderr);
  assert.ok(missing[0].includes(path.basename(lost)) && missing[0].includes('desktop-app.feature'), missing[0]);

  const pages = filesUnder(path.join(out, 'features'), /\.html$/);
  assert.equal(pages.length, 1, 'one page for the feature both shards ran');
  const page = fs.readFileSync(pages[0], 'utf8');
  for (const scenario of fs.readFileSync(path.join(REPO_ROOT, 'features', 'desktop-app.feature'), 'utf8').matchAll(/Scenario: (.+)/g)) {
    assert.ok(page.includes(scenario[1].trim()), `the report holds '${scenario[1].trim()}'`);
  }
  const shown = [...page.matchAll(/src="\.\.\/media\/([0-9a-f]+\.jpg)"/g)].map((m) => m[1]);
  assert.ok(shown.length >= pictures[0].length + pictures[1].length - 2, `the moved shards' screens are shown (${shown.length})`);
  assert.ok(shown.every((name) => fs.existsSync(path.join(out, 'media', name))));
  assert.match(page, /the picture was not kept/, 'the lost one is said to be missing where it was shown');
  assert.match(fs.readFileSync(path.join(out, 'index.html'), 'utf8'), /Evidence files not found/);
});

test('a shard path that holds no records is refused with what to give', async () => {
  const empty = fs.mkdtempSync(path.join(root, 'empty-shard-'));
  const refused = await run(process.execPath, [GLANCE, 'report', '--merge', empty], { cwd: root, encoding: 'utf8' }).then(() => null, (e: { stderr: string }) => e);
  assert.ok(refused, 'the merge fails');
  assert.match(refused.stderr, /holds no Cucumber records: no \.ndjson message file, and no \.json file .*'message:' or 'json:' format/);
});
