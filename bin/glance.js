#!/usr/bin/env node
'use strict';
const { compiled } = require('../lib/runtime/compiled');

Promise.resolve().then(() => compiled('lib/cli/main').main(process.argv.slice(2))).then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(`glance: ${error.message}`); process.exitCode = 1; },
);
