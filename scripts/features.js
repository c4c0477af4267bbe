#!/usr/bin/env node
'use strict';
// `npm run features`: runs the example features, then writes the HTML report
// whatever the outcome, prints where it is, and exits non-zero when a
// scenario failed. Arguments go to cucumber-js (e.g. a feature file, --tags).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { generate } = require('./report');

const root = path.resolve(__dirname, '..');
fs.rmSync(path.join(root, 'reports', 'json'), { recursive: true, force: true });
const cucumber = path.join(path.dirname(require.resolve('@cucumber/cucumber/package.json')), 'bin', 'cucumber.js');
const run = spawnSync(process.execPath, [cucumber, '--profile', 'ci', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
try {
  console.log(`\nreport: ${generate()}`);
} catch (error) {
  console.error(`glance report: ${error.message}`);
}
process.exit(run.status ?? 1);
