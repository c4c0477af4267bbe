import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'child_process';
import fs from 'fs';
import path from 'path';
import { REPO_ROOT, testState } from '../helpers/glance';

// Another project installs Glance from its local path, imports glance/cucumber
// in its own cucumber config, and runs a feature of its own.
const state = testState();
const project = fs.mkdtempSync(path.join(path.dirname(state.stateDir), 'project-'));
// Open to others, as a checkout is: the sandbox's programs read its pages as an ordinary user.
fs.chmodSync(project, 0o755);
after(() => fs.rmSync(project, { recursive: true, force: true }));

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
  fs.writeFileSync(path.join(project, file), text);
}

test('a project that installs Glance gets its steps, World and hooks from glance/cucumber', () => {
  const cucumberVersion = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'node_modules', '@cucumber', 'cucumber', 'package.json'), 'utf8')).version;
  write('package.json', JSON.stringify({ name: 'shop-tests', private: true, dependencies: { glance: `file:${REPO_ROOT}`, '@cucumber/cucumber': cucumberVersion } }, null, 2));
  write('cucumber.js', [
    "const glance = require('glance/cucumber');",
    "module.exports = { default: glance.profile({ worldParameters: { glance: { baseUrl: `file://${__dirname}/app/` } } }) };",
  ].join('\n'));
  write('app/index.html', '<!doctype html><body style="font:20px sans-serif;padding:40px"><button onclick="document.getElementById(\'m\').textContent=\'Thanks for your order\'" style="font-size:20px;padding:8px 16px">Place order</button><p id="m"></p></body>');
  write('features/order.feature', [
    'Feature: Ordering',
    '  Scenario: A customer places an order',
    "    Given I open 'index.html' in the browser",
    "    When I click the 'Place order' button",
    "    Then I should see 'Thanks for your order'",
  ].join('\n'));
  // The registry is reachable; packages already in npm's cache come from there.
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, stdio: 'pipe', timeout: 300_000 });
  assert.ok(fs.lstatSync(path.join(project, 'node_modules', 'glance')).isSymbolicLink() || fs.existsSync(path.join(project, 'node_modules', 'glance', 'package.json')));

  const run = spawnSync(path.join(project, 'node_modules', '.bin', 'cucumber-js'), [], {
    cwd: project, encoding: 'utf8', timeout: 180_000,
    env: { ...process.env, GLANCE_STATE_DIR: state.stateDir, GLANCE_API_KEY: state.apiKey },
  });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /1 scenario \(1 passed\)/);
  assert.match(run.stdout, /3 steps \(3 passed\)/);
});
