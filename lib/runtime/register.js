'use strict';
// For Glance's own TypeScript tests, benchmarks, examples and scripts
// (`node -r ./lib/runtime/register.js file.ts`): they run transpiled only
// (type checking is `npm run typecheck`'s job), while whatever they import of
// lib/, steps/ and support/ loads from the build in dist/, the code that
// ships. Glance itself never needs this: its entries load dist/.
const fs = require('fs');
const Module = require('module');
const path = require('path');
const { root, dist } = require('./compiled');
const { transpiled } = require('./transpile-cache');

if (!process[Symbol.for('glance.tsRegistered')]) {
  process[Symbol.for('glance.tsRegistered')] = true;
  const outputs = new Map();
  // Stack traces name the TypeScript lines, mapped when a trace is made (Node's own source maps
  // would read every package's maps as it loads: 0.6 s more for the Kubernetes client alone).
  require('source-map-support').install({ environment: 'node', retrieveFile: (file) => outputs.get(file) ?? null });

  const inRepo = (file) => file.startsWith(root + path.sep) && !file.includes(`${path.sep}node_modules${path.sep}`);
  const loadJs = Module._extensions['.js'];
  Module._extensions['.ts'] = function loadTypeScript(module, file) {
    if (!inRepo(file)) return loadJs(module, file);
    const output = transpiled(file);
    outputs.set(file, output);
    module._compile(output, file);
  };

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
