#!/usr/bin/env node
'use strict';
// `npm run build`: compiles lib/, steps/ and support/ into dist/ (JavaScript
// and declarations). Incremental, so it is quick when little changed. Set-up,
// the test runner and `prepare` run it, so dist/ follows the sources.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const dist = path.join(root, 'dist');
const started = new Date();
const tsc = require.resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });

// tsc still writes its output when the only errors are type errors (status 2).
const emitted = run.status === 0 || run.status === 2;
if (emitted) {
  removeOrphans(dist);
  // The stamp the entries compare the sources with (lib/runtime/compiled.js):
  // the time the build started, so an edit made while it ran still counts.
  const stamp = path.join(dist, '.tsbuildinfo');
  if (fs.existsSync(stamp)) fs.utimesSync(stamp, started, started);
}
if (run.status === 2) console.error('glance build: dist/ is written, but with the type errors above.');
process.exit(run.status ?? 1);

/** Removes output whose source is gone (moved or deleted), so that nothing can load it. */
function removeOrphans(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removeOrphans(file);
      if (!fs.readdirSync(file).length) fs.rmdirSync(file);
      continue;
    }
    const source = path.join(root, path.relative(dist, file)).replace(/(\.d)?\.ts$|\.js$/, '.ts');
    if (/\.(js|d\.ts)$/.test(entry.name) && !fs.existsSync(source)) fs.rmSync(file);
  }
}
