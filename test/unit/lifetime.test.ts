import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { Lifetime } from '../../lib/sandbox/agent/lifetime';

const LEASE = 30_000;

/** A lifetime on mocked timers, with the reasons it ended for. */
function lifetime(keepAliveMs: number) {
  const ended: string[] = [];
  return { life: new Lifetime((reason) => ended.push(reason), keepAliveMs, LEASE), ended };
}

test('a request that takes longer than the lease holds the sandbox; the lease runs from its answer', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { life, ended } = lifetime(0);
  life.attach(0);
  life.requestStarted();
  t.mock.timers.tick(LEASE * 3);
  assert.deepEqual(ended, [], 'a launch or shell command still running does not end the sandbox');
  assert.equal(life.state, 'attached');
  life.requestEnded();
  t.mock.timers.tick(LEASE - 1);
  assert.deepEqual(ended, []);
  t.mock.timers.tick(1);
  assert.deepEqual(ended, ['keepAlive of 0 ms expired'], 'a client that asks nothing for a lease is gone');
});

test('overlapping requests hold the sandbox until the last is answered', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { life, ended } = lifetime(0);
  life.attach(5_000);
  life.requestStarted();
  life.requestStarted();
  life.requestEnded();
  t.mock.timers.tick(LEASE * 2);
  assert.deepEqual(ended, []);
  life.requestEnded();
  t.mock.timers.tick(LEASE);
  assert.equal(life.state, 'kept-alive', 'the lease ran out: the sandbox is kept for its keepAlive');
  t.mock.timers.tick(5_000);
  assert.deepEqual(ended, ['keepAlive of 5000 ms expired']);
});

test('a released sandbox ends after its keepAlive, asked or not; one nobody attached to ends after the lease', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const released = lifetime(0);
  released.life.attach(0);
  released.life.release(2_000);
  released.life.requestStarted();
  t.mock.timers.tick(2_000);
  assert.deepEqual(released.ended, ['keepAlive of 2000 ms expired'], 'a request after the release (a rejoin asking for health) does not hold it');
  const unattached = lifetime(0);
  t.mock.timers.tick(LEASE);
  assert.deepEqual(unattached.ended, ['nobody attached after start']);
});
