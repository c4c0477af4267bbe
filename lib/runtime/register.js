'use strict';
// For Glance's own TypeScript tests, benchmarks, examples and scripts
// (`node -r ./lib/runtime/register.js file.ts`): they run through ts-node,
// transpiled only (type checking is `npm run typecheck`'s job), while whatever
// they import of lib/, steps/ and support/ loads from the build in dist/, the
// code that ships. Glance itself never needs this: its entries load dist/.
const fs = require('fs');
const Module = require('module');
const path = require('path');
const { root, dist } = require('./compiled');

if (!process[Symbol.for('glance.tsRegistered')]) {
  process[Symbol.for('glance.tsRegistered')] = true;
  require('ts-node').register({ transpileOnly: true, project: path.join(root, 'tsconfig.json'), scope: true, scopeDir: root });

  const built = ['lib', 'steps', 'support'].map((dir) => path.join(root, dir) + path.sep);
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function resolveToBuild(...args) {
    const file = resolve.apply(this, args);
    if (!file.endsWith('.ts') || !built.some((dir) => file.startsWith(dir))) return file;
    const target = path.join(dist, path.relative(root, file)).replace(/\.ts$/, '.js');
    if (!fs.existsSync(target)) {
      throw new Error(`${path.relative(root, file)} has no build in dist/. Run \`npm run build\` in ${root}.`);
    }
    return target;
  };
}
