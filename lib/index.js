'use strict';
// Package entry (`glance`): the SDK, compiled.
module.exports = require('./runtime/compiled').compiled('lib/sdk');
