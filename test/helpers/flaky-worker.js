'use strict';
// A child for BoundedRunner's tests: answers 'echo', throws on 'throw', hangs
// on 'hang', dies on 'crash' and grows memory without bound on 'grow'.
const { serveJobs } = require('../../bench/locate/real/bounded-runner');

serveJobs(async (job) => {
  if (job === 'throw') throw new Error('the engine gave up');
  if (job === 'hang') for (;;) { /* a runaway loop */ }
  if (job === 'crash') process.exit(70);
  if (job === 'grow') { const hoard = []; for (;;) hoard.push(new Array(1e6).fill(1)); }
  return `echo ${job}`;
});
