'use strict';
// Package entry: loads the TypeScript SDK.
require('./runtime/register');
module.exports = require('./sdk.ts');
