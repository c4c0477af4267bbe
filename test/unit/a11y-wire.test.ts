import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'stream';
import { encodeMethodCall } from '../../lib/sandbox/agent/a11y/wire';
// dbus-next's own stream decoder is the reference: the agent's replies go through it too.
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { unmarshalMessages } = require('dbus-next/lib/message');

function decode(message: Buffer): Promise<Record<string, any>> {
  return new Promise((resolve) => {
    const stream = new PassThrough();
    unmarshalMessages(stream, resolve, {});
    stream.end(message);
  });
}

const call = { destination: ':1.42', path: '/org/a11y/atspi/accessible/35', interface: 'org.a11y.atspi.Accessible' };

test('a call without arguments decodes to its header fields and an empty body', async () => {
  const decoded = await decode(encodeMethodCall(7, { ...call, member: 'GetChildren' }));
  assert.equal(decoded.serial, 7);
  assert.equal(decoded.type, 1);
  assert.equal(decoded.destination, ':1.42');
  assert.equal(decoded.path, '/org/a11y/atspi/accessible/35');
  assert.equal(decoded.interface, 'org.a11y.atspi.Accessible');
  assert.equal(decoded.member, 'GetChildren');
  assert.deepEqual(decoded.body ?? [], []);
});

test('strings, integers and unicode survive the round trip', async () => {
  const decoded = await decode(encodeMethodCall(8, { ...call, interface: 'org.freedesktop.DBus.Properties', member: 'Get', signature: 'ss', body: ['org.a11y.atspi.Accessible', 'Nâme ✓'] }));
  assert.equal(decoded.signature, 'ss');
  assert.deepEqual(decoded.body, ['org.a11y.atspi.Accessible', 'Nâme ✓']);
  const numbers = await decode(encodeMethodCall(9, { ...call, member: 'GetText', signature: 'ii', body: [0, -1] }));
  assert.deepEqual(numbers.body, [0, -1]);
});

test('a collection match rule: structs, arrays, a dictionary and booleans', async () => {
  const rule = [[1 << 25, 0], 1, { role: 'x' }, 1, [], 1, ['Text'], 2, false];
  const decoded = await decode(encodeMethodCall(10, { ...call, interface: 'org.a11y.atspi.Collection', member: 'GetMatches', signature: '(aiia{ss}iaiiasib)uib', body: [rule, 1, 0, true] }));
  assert.equal(decoded.signature, '(aiia{ss}iaiiasib)uib');
  // Dictionaries come back as key-value pairs.
  assert.deepEqual(decoded.body, [[[1 << 25, 0], 1, [['role', 'x']], 1, [], 1, ['Text'], 2, false], 1, 0, true]);
});
