import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IFACE, ROLE_NAMES, State } from '../../lib/sandbox/agent/a11y/atspi';
import { KnownObject, TreeWalker } from '../../lib/sandbox/agent/a11y/tree';
import type { AccessibilityBus, Ref } from '../../lib/sandbox/agent/a11y/bus';

// A walk asks the objects that were on the screen at the last walk, as it
// starts, what it will ask them, so that a deep tree costs a few round trips
// and not one or two a level. A fake application answers here: a chain of
// panels twelve deep over a paragraph, answering each call a turn later.

const APP = ':1.7';
const SHOWING = [(1 << State.SHOWING) | (1 << State.VISIBLE), 0];
const role = (name: string) => ROLE_NAMES.indexOf(name);

interface FakeObject { role: string; name: string; children: string[]; text?: string }

function deepTree(depth: number): Map<string, FakeObject> {
  const objects = new Map<string, FakeObject>();
  objects.set('/root', { role: 'application', name: 'fake', children: ['/0'] });
  for (let level = 0; level < depth; level++) {
    objects.set(`/${level}`, { role: level === 0 ? 'frame' : 'panel', name: '', children: [`/${level + 1}`] });
  }
  objects.set(`/${depth}`, { role: 'paragraph', name: '', children: [], text: 'Order confirmed' });
  return objects;
}

/**
 * Answers like an application on the bus, each call a turn later: counts
 * the round trips the walk waited for (how many answers had come in when
 * each call went out, told apart) and who was asked.
 */
function fakeBus(objects: Map<string, FakeObject>) {
  const trips = new Set<number>();
  let answered = 0;
  const asked: string[] = [];
  const reply = (path: string, iface: string, member: string, body: unknown[]): unknown[] => {
    const object = objects.get(path);
    if (!object) throw new Error('org.freedesktop.DBus.Error.UnknownObject');
    const refs = (paths: string[]): Ref[] => paths.map((p) => [APP, p]);
    if (member === 'GetChildren') return [refs(object.children)];
    if (member === 'GetState') return [SHOWING];
    if (member === 'GetRole') return [role(object.role)];
    if (member === 'GetAll') return [{ Name: { value: object.name }, Description: { value: '' } }];
    if (member === 'GetExtents') return [[0, 0, 400, 300]];
    if (member === 'Get' && body[1] === 'ToolkitName') return [{ value: 'GTK' }];
    if (member === 'Get' && body[1] === 'Name') return [{ value: object.name }];
    if (member === 'GetText' && object.text !== undefined) return [object.text];
    throw new Error(`org.freedesktop.DBus.Error.UnknownMethod: ${iface}.${member}`);
  };
  const bus = {
    call(_destination: string, path: string, iface: string, member: string, _signature = '', body: unknown[] = []) {
      trips.add(answered);
      asked.push(path);
      return new Promise<unknown[]>((resolve, reject) => setImmediate(() => {
        answered++;
        try { resolve(reply(path, iface, member, body)); } catch (error) { reject(error); }
      }));
    },
  } as unknown as AccessibilityBus;
  return { bus, roundTrips: () => trips.size, asked, reset: () => { trips.clear(); asked.length = 0; } };
}

async function walk(bus: AccessibilityBus, known: Map<string, KnownObject>) {
  const walker = new TreeWalker(bus, [APP, '/root'], { remaining: 1000, visits: 4000 }, {
    expired: new Promise<never>(() => undefined), alive: () => undefined, hidden: () => false, known,
  });
  return walker.walk();
}

test('a walk asks the objects on the screen at the last one ahead: a deep tree costs a few round trips, with the same nodes', async () => {
  const fake = fakeBus(deepTree(12));
  const known = new Map<string, KnownObject>();
  const first = await walk(fake.bus, known);
  const firstTrips = fake.roundTrips();
  fake.reset();
  const second = await walk(fake.bus, known);
  const secondTrips = fake.roundTrips();

  assert.equal(first.nodes.length, 13);
  assert.equal(first.nodes.at(-1)!.value, 'Order confirmed');
  const shape = (w: typeof first) => w.nodes.map((n) => `${n.path} ${n.role} ${n.name} ${n.value}`);
  assert.deepEqual(shape(second), shape(first));
  assert.ok(firstTrips >= 13, `the first walk waits a round trip a level (${firstTrips} round trips)`);
  assert.ok(secondTrips <= 4, `the second asks ahead: ${secondTrips} round trips against ${firstTrips}`);
});

test('objects gone since the last whole walk are forgotten, and not asked ahead again', async () => {
  const objects = deepTree(6);
  const fake = fakeBus(objects);
  const known = new Map<string, KnownObject>();
  await walk(fake.bus, known);
  // The page replaces its content: the panel under the frame and all below it go, a new one comes.
  for (let level = 1; level <= 6; level++) objects.delete(`/${level}`);
  objects.get('/0')!.children = ['/new'];
  objects.set('/new', { role: 'paragraph', name: '', children: [], text: 'Start over' });
  await walk(fake.bus, known); // asks the gone objects ahead once: it could not know
  fake.reset();
  const third = await walk(fake.bus, known);

  assert.deepEqual(third.nodes.map((n) => n.value ?? n.role), ['frame', 'Start over']);
  assert.deepEqual(fake.asked.filter((path) => /^\/[1-6]$/.test(path)), [], 'the gone panels are not asked again');
  assert.equal([...known.keys()].some((path) => /^\/[1-6]$/.test(path)), false);
});
