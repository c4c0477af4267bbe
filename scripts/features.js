#!/usr/bin/env node
'use strict';
// `npm run features`: runs the example features, then writes the HTML report
// whatever the outcome, prints where it is, and exits non-zero when a
// scenario failed. Arguments go to cucumber-js (e.g. a feature file).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
fs.rmSync(path.join(root, 'reports', 'json'), { recursive: true, force: true });
const cucumber = path.join(path.dirname(require.resolve('@cucumber/cucumber/package.json')), 'bin', 'cucumber.js');
// One run id for every worker, so that `glance stats` counts the run as one.
const runId = process.env.GLANCE_RUN_ID || `features-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${process.pid}`;
const run = spawnSync(process.execPath, [cucumber, '--profile', 'ci', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit', env: { ...process.env, GLANCE_RUN_ID: runId } });
const report = spawnSync(process.execPath, [path.join(root, 'bin', 'glance.js'), 'report'], { cwd: root, stdio: 'inherit' });
// A run ended by a signal has no status: that is a failure too.
process.exit(run.status !== 0 ? run.status ?? 1 : report.status ?? 1);
