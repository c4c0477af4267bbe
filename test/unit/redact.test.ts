import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redactor } from '../../lib/client/redact';

test('secrets are masked in text, nested values and errors', () => {
  const r = new Redactor();
  r.add('hunter22');
  assert.equal(r.text('password is hunter22!'), 'password is ****!');
  assert.deepEqual(r.value({ a: ['x hunter22'], b: 3 }), { a: ['x ****'], b: 3 });
  const error = r.error(new Error('login with hunter22 failed'));
  assert.equal(error.message, 'login with **** failed');
  assert.ok(!error.stack!.includes('hunter22'));
});
