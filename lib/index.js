'use strict';
// Package entry (`glance`): the SDK, compiled.
module.exports = require('./runtime/compiled').compiled('lib/sdk');
// The names, written out for `import { Client } from 'glance'` in an ES module: Node reads
// them from this line without running it (a test keeps it equal to lib/sdk.ts's exports).
0 && (module.exports = {
  Client, Element, ElementNotFoundError, GlanceError, InvalidOptionError, AuthError, StateError,
  SandboxError, QuotaError, ExecError, AssertionError, VisionModelError, VisionModelRequiredError, ConnectionError,
});
