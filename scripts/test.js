#!/usr/bin/env node
'use strict';
// Runs the test suite with node's test runner, against the build in dist/:
// it builds first, and lib/runtime/register.js loads Glance from there while
// the test files themselves run transpiled (all of them ahead, here, into a
// cache every test process reads). Before the tests start, it
// notes the desktop processes already running, so the last test can prove that
// the suite leaked none of its own.
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
// Type errors alone still leave a complete build (status 2); they are typecheck's business.
const build = spawnSync(process.execPath, [path.join(__dirname, 'build.js')], { cwd: root, stdio: 'inherit' });
if (build.status !== 0 && build.status !== 2) process.exit(build.status ?? 1);

require('../lib/runtime/transpile-cache').transpileAhead([path.join(root, 'test')]);

const only = process.argv.slice(2);
const collect = (dir) => fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join(dir, f));

const suiteRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-test-'));
// The runner starts a process per file, about half a second each: the unit files, which start
// no sandbox, share one process (an entry that loads them all); the integration files keep their own.
const unitEntry = path.join(suiteRoot, 'unit.test.js');
fs.writeFileSync(unitEntry, collect('test/unit').map((f) => `require(${JSON.stringify(path.join(root, f))});`).join('\n'));
const files = only.length ? only : [unitEntry, ...collect('test/integration'), 'test/leaks.test.ts'];
// Tests open pages and run programs from here in sandboxes, whose programs run as an ordinary user.
fs.chmodSync(suiteRoot, 0o755);
const baseline = path.join(suiteRoot, 'processes-before.json');
fs.writeFileSync(baseline, JSON.stringify(require('../test/helpers/processes.js').desktopProcesses()));
const foldersBaseline = path.join(suiteRoot, 'folders-before.json');
fs.writeFileSync(foldersBaseline, JSON.stringify(require('../test/helpers/processes.js').ownedTempFolders()));

const result = spawnSync(process.execPath, ['-r', './lib/runtime/register.js', '--test', '--test-concurrency=1', ...files], {
  cwd: root, stdio: 'inherit',
  // GLANCE_TEST_NO_DASHCAM: the tests' clients record no clip unless a test asks (test/helpers/glance.ts says why).
  env: { ...process.env, GLANCE_TEST_ROOT: suiteRoot, GLANCE_TEST_BASELINE: baseline, GLANCE_TEST_FOLDERS_BASELINE: foldersBaseline, GLANCE_TEST_NO_DASHCAM: '1' },
});
// A failure may come from a sandbox that ended early: say how each agent ended before its log goes with the folder.
if (result.status !== 0) for (const line of require('./agent-endings').agentEndings(suiteRoot)) console.log(line);
fs.rmSync(suiteRoot, { recursive: true, force: true });
process.exit(result.status ?? 1);
