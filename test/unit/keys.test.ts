import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseChord } from '../../lib/sandbox/keys';
import { keysymFor, keysymForChar } from '../../lib/sandbox/agent/x11-keysyms';

test('combinations split on + and normalise aliases', () => {
  assert.deepEqual(parseChord(['ctrl+shift+t']), ['ctrl', 'shift', 't']);
  assert.deepEqual(parseChord(['Control', 'C']), ['ctrl', 'C']);
  assert.deepEqual(parseChord(['Enter']), ['enter']);
  assert.deepEqual(parseChord(['ctrl++']), ['ctrl', '+']);
  assert.deepEqual(parseChord(['cmd+PageDown']), ['meta', 'pagedown']);
});

test('unknown keys fail with a suggestion', () => {
  assert.throws(() => parseChord(['ctrll+a']), /Unknown key 'ctrll'.*Did you mean 'ctrl'/);
  assert.throws(() => parseChord([]), /non-empty array/);
  assert.throws(() => parseChord('ctrl+a' as unknown as string[]), /non-empty array/);
});

test('keysyms: Latin-1 maps to itself, other characters to the Unicode range', () => {
  assert.equal(keysymForChar('A'), 0x41);
  assert.equal(keysymForChar('é'), 0xe9);
  assert.equal(keysymForChar('€'), 0x010020ac);
  assert.equal(keysymFor('enter'), 0xff0d);
  assert.equal(keysymFor('f12'), 0xffc9);
});
