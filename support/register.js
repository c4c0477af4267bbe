'use strict';
// The support file Cucumber loads (see cucumber.js / glance/cucumber): the
// steps, World and hooks, from Glance's TypeScript sources.
require('../lib/runtime/register');
module.exports = require('./index.ts');
