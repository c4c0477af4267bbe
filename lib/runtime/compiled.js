'use strict';
// Glance runs from its JavaScript build in dist/ (`npm run build`, also run by
// set-up and on install). The entries load it through here, so that a missing
// build fails with what to do, and in a checkout a build older than its
// TypeScript sources says so instead of running old code unnoticed.
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..');
const dist = path.join(root, 'dist');
// Written by scripts/build.js; its time is when the build started.
const stamp = path.join(dist, '.tsbuildinfo');
let checked = false;

/** A TypeScript source under `dir` changed after `since` (ms), or null. */
function newerSource(dir, since) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const newer = entry.isDirectory() ? newerSource(file, since) : entry.name.endsWith('.ts') && fs.statSync(file).mtimeMs > since && file;
    if (newer) return newer;
  }
  return null;
}

function checkBuild(target) {
  checked = true;
  if (!fs.existsSync(target)) {
    throw new Error(`Glance is not built: ${target} is missing. Run \`npm run build\` in ${root}.`);
  }
  // Only a checkout has sources to compare with; an installed package has the build alone.
  if (!fs.existsSync(path.join(root, 'tsconfig.build.json'))) return;
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  for (const dir of ['lib', 'steps', 'support']) {
    const newer = newerSource(path.join(root, dir), built);
    if (newer) {
      process.emitWarning(`Glance's build in dist/ is older than ${path.relative(root, newer)}: run \`npm run build\`.`, { code: 'GLANCE_STALE_BUILD' });
      return;
    }
  }
}

/** The compiled module of a source file, by its path without extension: `compiled('lib/sdk')`. */
function compiled(file) {
  const target = path.join(dist, `${file}.js`);
  if (!checked) checkBuild(target);
  return require(target);
}

module.exports = { compiled, root, dist };
