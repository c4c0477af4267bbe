'use strict';
// Profiles for the example features. `default`: progress output and one
// reused sandbox per worker. `ci`: message, JSON and JUnit reports under
// reports/, GLANCE_PARALLEL workers, and one retry for scenarios tagged @flaky.
const path = require('path');
const glance = require('./support/cucumber');

const common = {
  paths: ['features/**/*.feature'],
  tags: process.env.GLANCE_TAGS || 'not @expected-failure',
  worldParameters: {
    glance: {
      reuseSandbox: true,
      baseUrl: `file://${path.join(__dirname, 'features', 'fixtures')}/`,
    },
  },
};

module.exports = {
  default: glance.profile({ ...common, format: ['progress', 'json:reports/json/cucumber.json'] }),
  ci: glance.profile({
    ...common,
    format: ['progress', 'message:reports/messages.ndjson', 'json:reports/json/cucumber.json', 'junit:reports/junit.xml'],
    parallel: Number(process.env.GLANCE_PARALLEL || 1),
    retry: 1,
    retryTagFilter: '@flaky',
  }),
};
