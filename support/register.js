'use strict';
// The support file Cucumber loads (see cucumber.js / glance/cucumber): the
// steps, World and hooks, compiled.
module.exports = require('../lib/runtime/compiled').compiled('support/index');
