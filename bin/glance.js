#!/usr/bin/env node
'use strict';
require('../lib/runtime/register');
require('../lib/cli/main.ts').main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(`glance: ${error.message}`); process.exitCode = 1; },
);
