'use strict';
// Glance ships TypeScript sources and runs them through ts-node. Type checking
// is `npm run typecheck`'s job, so loading only transpiles, which keeps start-up
// fast. Scoped to Glance's own folder so it also works when Glance is installed
// inside another project's node_modules.
const path = require('path');

const root = path.resolve(__dirname, '..', '..');
if (!process[Symbol.for('glance.tsRegistered')]) {
  process[Symbol.for('glance.tsRegistered')] = true;
  require('ts-node').register({
    transpileOnly: true,
    project: path.join(root, 'tsconfig.json'),
    scope: true,
    scopeDir: root,
    ignore: ['(?:^|/)node_modules/(?!glance/)', `^${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/node_modules/`],
  });
}
