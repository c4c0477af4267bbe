#!/usr/bin/env node
'use strict';
const { compiled } = require('../lib/runtime/compiled');

// The recorder writes only lines that match one step of the library: the step registry (outside lib/) is lent to it.
const hooks = { matchingPhrases: (text) => compiled('steps/matching').matchingPhrases(text) };
Promise.resolve().then(() => compiled('lib/cli/main').main(process.argv.slice(2), hooks)).then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(`glance: ${error.message}`); process.exitCode = 1; },
);
