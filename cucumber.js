'use strict';
// Profiles. `default`: the example features, progress output and reused
// sandboxes (each worker keeps its own). `ci`: the same with message, JSON and JUnit reports
// under reports/ and GLANCE_PARALLEL workers; no retries (a flake gets a
// cause, not a retry). `acceptance`: the acceptance suite (run by
// `npm run acceptance`, which serves its web apps at GLANCE_BASE_URL).
const path = require('path');
const glance = require('./support/cucumber');

const fixtures = path.join(__dirname, 'features', 'fixtures');
// The sign-up example reads its password from the environment, as real suites
// should; this default keeps the examples runnable out of the box.
process.env.ACME_PASSWORD ??= 'correct-horse-battery';

const common = {
  tags: process.env.GLANCE_TAGS || 'not @expected-failure',
  worldParameters: {
    glance: {
      reuseSandbox: true,
      baseUrl: `file://${fixtures}/`,
      // Desktop programs of the examples (stockroom) start by name.
      environment: { PATH: `${path.join(fixtures, 'bin')}:${process.env.PATH}` },
    },
  },
};

module.exports = {
  default: glance.profile({ ...common, format: ['progress', 'json:reports/json/cucumber.json'] }),
  ci: glance.profile({
    ...common,
    format: ['progress', 'message:reports/messages.ndjson', 'json:reports/json/cucumber.json', 'junit:reports/junit.xml'],
    parallel: Number(process.env.GLANCE_PARALLEL || 1),
  }),
  acceptance: glance.profile({
    paths: ['acceptance/**/*.feature'],
    format: ['progress'],
    worldParameters: { glance: { reuseSandbox: true } },
  }),
};
