import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { execFileSync } from 'child_process';
import { REPO_ROOT } from '../helpers/glance';
import { openDb } from '../../lib/store/db';
import { findKey } from '../../lib/service/api-keys';
import { testFolder } from '../helpers/test-root';

const glance = (cwd: string, ...args: string[]) => glanceWith(cwd, '', ...args);
const glanceWith = (cwd: string, stateDir: string, ...args: string[]) =>
  execFileSync(process.execPath, [path.join(REPO_ROOT, 'bin/glance.js'), ...args], { cwd, encoding: 'utf8', env: { ...process.env, GLANCE_STATE_DIR: stateDir } });

test('glance init creates a hashed key, writes .env and ignores it, and is idempotent', () => {
  const dir = testFolder('init-');
  fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n');
  const first = glance(dir, 'init');
  const env = fs.readFileSync(path.join(dir, '.env'), 'utf8');
  const key = /^GLANCE_API_KEY=(\S+)$/m.exec(env)![1];
  assert.ok(!first.includes(key), 'the key is not printed');
  assert.equal(fs.statSync(path.join(dir, '.env')).mode & 0o777, 0o600);
  assert.deepEqual(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8').split('\n').filter(Boolean), ['node_modules/', '.env', '.glance/']);
  const db = openDb(path.join(dir, '.glance'));
  assert.ok(findKey(db, key));
  db.close();
  const second = glance(dir, 'init');
  assert.match(second, /already|is set up/i);
  assert.equal(fs.readFileSync(path.join(dir, '.env'), 'utf8'), env);
  assert.equal(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8').split('\n').filter(Boolean).length, 3);
});

test('glance init ignores a state folder set inside the project, and writes no line for one outside it', () => {
  const root = testFolder('init-');
  const project = path.join(root, 'project');
  fs.mkdirSync(project);
  glanceWith(project, path.join(project, 'state', 'glance'), 'init');
  glanceWith(project, path.join(root, 'elsewhere'), 'init', '--force');
  assert.deepEqual(fs.readFileSync(path.join(project, '.gitignore'), 'utf8').split('\n').filter(Boolean), ['.env', 'state/glance/']);
});

test('unknown commands print usage and fail', () => {
  assert.throws(() => glance(REPO_ROOT, 'frobnicate'), (e: { status: number; stderr: string }) => e.status === 2 && /unknown command 'frobnicate'/.test(e.stderr));
});
