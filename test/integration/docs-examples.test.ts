import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'child_process';
import { promisify } from 'util';
import fs from 'fs';
import path from 'path';
import { serveFolder } from '../../lib/util/static-server';
import { FIXTURES, REPO_ROOT, testState } from '../helpers/glance';

// The documentation's runnable examples, run as written, from a project that
// installs Glance: the SDK page's first example as an ES module.
const state = testState();
const project = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'docs-project-'));
fs.chmodSync(project, 0o755);
after(() => fs.rmSync(project, { recursive: true, force: true }));

test("the package's ES-module names are the SDK's exports", () => {
  const listed = /0 && \(module\.exports = \{([^}]*)\}\)/.exec(fs.readFileSync(path.join(REPO_ROOT, 'lib', 'index.js'), 'utf8'))![1].split(',').map((n) => n.trim()).filter(Boolean);
  assert.deepEqual(listed.sort(), Object.keys(require(REPO_ROOT)).sort());
});

test("docs/sdk.md's first example runs as written, against a page at localhost:3000", async () => {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'sdk.md'), 'utf8');
  const example = /```ts\n([\s\S]*?)```/.exec(doc)![1];
  fs.mkdirSync(path.join(project, 'node_modules'), { recursive: true });
  fs.symlinkSync(REPO_ROOT, path.join(project, 'node_modules', 'glance'));
  // The example is plain JavaScript with top-level await: an ES module.
  fs.writeFileSync(path.join(project, 'example.mjs'), example);
  const page = await serveFolder(FIXTURES, 3000);
  try {
    const run = await promisify(execFile)(process.execPath, ['example.mjs'], {
      cwd: project, encoding: 'utf8', timeout: 120_000,
      env: { ...process.env, GLANCE_API_KEY: state.apiKey, GLANCE_STATE_DIR: state.stateDir, CI: 'true' },
    }).catch((error: { stdout: string; stderr: string }) => assert.fail(`the example failed: ${error.stderr}${error.stdout}`));
    assert.match(run.stdout, /Linux/, 'uname -a ran in the sandbox');
    const screenshot = run.stdout.trim().split('\n').pop()!;
    assert.ok(screenshot.endsWith('.png') && fs.existsSync(screenshot), `a screenshot: ${screenshot}`);
  } finally {
    await page.close();
  }
});
