import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GestureReader, RawInput } from '../../lib/client/recorder/gestures';
import { secretName, stepText } from '../../lib/client/recorder/step-text';
import { elementAt, nameOf, sameElement, usableName } from '../../lib/service/describe';
import type { A11yNode } from '../../lib/types/a11y';

/** Inputs as the agent records them, numbered and timed in order. */
function inputs(...list: Omit<RawInput, 'seq' | 'time' | 'state' | 'keysym'>[] | (Partial<RawInput> & Pick<RawInput, 'kind'>)[]): RawInput[] {
  let time = 1000;
  return (list as Partial<RawInput>[]).map((input, i) => ({
    seq: i + 1, pressed: false, detail: 0, keysym: 0, x: 0, y: 0, state: 0, ...input, time: input.time ?? (time += 50),
  }) as RawInput);
}

const press = (button: number, x: number, y: number, extra: Partial<RawInput> = {}) => [
  { kind: 'button' as const, pressed: true, detail: button, x, y, ...extra },
  { kind: 'button' as const, pressed: false, detail: button, x, y, ...extra },
];
const key = (keysym: number, state = 0) => [{ kind: 'key' as const, pressed: true, keysym, state }, { kind: 'key' as const, pressed: false, keysym, state }];
const typed = (text: string) => [...text].flatMap((c) => key(c.codePointAt(0)!, /[A-Z]/.test(c) ? 1 : 0));

function read(list: RawInput[]) {
  const reader = new GestureReader();
  reader.push(list);
  return [...reader.take(), ...reader.flush()].map(({ seq, time, ...g }) => g);
}

test('clicks, a double-click, a right-click and a drag are read as a person made them', () => {
  assert.deepEqual(read(inputs(...press(1, 10, 20))), [{ kind: 'click', at: { x: 10, y: 20 }, button: 'left', count: 1, modifiers: [] }]);
  // Two quick clicks in one place: the first, then the double-click that stands for both.
  assert.deepEqual(read(inputs(...press(1, 10, 20), ...press(1, 11, 21))).map((g) => g.kind === 'click' && g.count), [1, 2]);
  // Two clicks far apart, or slow, stay two clicks.
  assert.deepEqual(read(inputs(...press(1, 10, 20), ...press(1, 200, 20))).map((g) => g.kind === 'click' && g.count), [1, 1]);
  const slow = inputs(...press(1, 10, 20), ...press(1, 10, 20));
  slow[2].time += 1000;
  slow[3].time += 1000;
  assert.deepEqual(read(slow).map((g) => g.kind === 'click' && g.count), [1, 1]);
  assert.deepEqual(read(inputs(...press(3, 5, 6))), [{ kind: 'click', at: { x: 5, y: 6 }, button: 'right', count: 1, modifiers: [] }]);
  assert.deepEqual(read(inputs({ kind: 'button', pressed: true, detail: 1, x: 10, y: 10 }, { kind: 'motion', x: 60, y: 90 }, { kind: 'button', pressed: false, detail: 1, x: 120, y: 200 })),
    [{ kind: 'drag', from: { x: 10, y: 10 }, to: { x: 120, y: 200 } }]);
});

test('a pointer held still is a rest, read when the next input ends it; not when it only led to a click there, or while typing or holding a button', () => {
  const rest = (list: RawInput[]) => read(list).filter((g) => g.kind === 'rest');
  const still = (gap: number, ...after: (Partial<RawInput> & Pick<RawInput, 'kind'>)[]) => {
    const list = inputs({ kind: 'motion', x: 100, y: 40 }, { kind: 'motion', x: 120, y: 48 }, ...after);
    for (const input of list.slice(2)) input.time += gap;
    return list;
  };
  assert.deepEqual(rest(still(800, { kind: 'motion', x: 400, y: 300 })), [{ kind: 'rest', at: { x: 120, y: 48 }, endSeq: 3 }]);
  assert.deepEqual(rest(still(800, ...press(1, 400, 300))), [{ kind: 'rest', at: { x: 120, y: 48 }, endSeq: 3 }], 'a click elsewhere after the rest');
  assert.deepEqual(rest(still(300, { kind: 'motion', x: 400, y: 300 })), [], 'too short to be a rest');
  assert.deepEqual(rest(still(800, ...press(1, 122, 50))), [], 'a click where it rested says it');
  assert.deepEqual(rest(inputs(...typed('ab'), { kind: 'motion', x: 120, y: 48 }, { kind: 'motion', x: 400, y: 300, time: 5000 })), [], 'text being typed');
  assert.deepEqual(rest(inputs({ kind: 'button', pressed: true, detail: 1, x: 10, y: 10 }, { kind: 'motion', x: 60, y: 90 }, { kind: 'motion', x: 80, y: 90, time: 5000 }, { kind: 'button', pressed: false, detail: 1, x: 80, y: 90, time: 5050 })), [], 'a drag held still');
  // The rest comes before what ended it.
  assert.deepEqual(read(still(800, ...press(1, 400, 300))).map((g) => g.kind), ['rest', 'click']);
});

test("one field's keystrokes are one typing, mended by Backspace, and ended by what comes next", () => {
  const reader = new GestureReader();
  reader.push(inputs(...typed('Ada Lx'), ...key(0xff08), ...typed('ovelace')));
  assert.deepEqual(reader.take(), [], 'typing stays open while the field is being typed into');
  assert.ok(reader.open);
  reader.push(inputs(...key(0xff09)).map((i) => ({ ...i, seq: i.seq + 100 })));
  assert.deepEqual(reader.take().map(({ seq, time, ...g }) => g), [{ kind: 'type', text: 'Ada Lovelace' }, { kind: 'press', keys: 'Tab' }]);
  // Shift makes capitals and symbols, not a chord; with a named key it counts.
  assert.deepEqual(read(inputs(...typed('Hi!'))), [{ kind: 'type', text: 'Hi!' }]);
  assert.deepEqual(read(inputs(...key(0xff09, 1))), [{ kind: 'press', keys: 'shift+Tab' }]);
});

test('chords, named keys and scrolls are read whole; modifier keys alone make nothing', () => {
  const CTRL = 4;
  assert.deepEqual(read(inputs({ kind: 'key', pressed: true, keysym: 0xffe3, state: 0 }, ...key(0x73, CTRL))), [{ kind: 'press', keys: 'ctrl+s' }]);
  assert.deepEqual(read(inputs(...typed('ab'), ...key(0xff0d))), [{ kind: 'type', text: 'ab' }, { kind: 'press', keys: 'Enter' }]);
  assert.deepEqual(read(inputs(...press(5, 300, 400), ...press(5, 300, 400), ...press(5, 300, 410), ...press(4, 300, 410))),
    [{ kind: 'scroll', direction: 'down', notches: 3, at: { x: 300, y: 400 } }, { kind: 'scroll', direction: 'up', notches: 1, at: { x: 300, y: 410 } }]);
});

function node(path: string, role: string, name: string, box: [number, number, number, number], extra: Partial<A11yNode> = {}): A11yNode {
  return { path, parent: null, role, name, description: '', value: null, states: [], box: { x: box[0], y: box[1], width: box[2], height: box[3] }, app: 'app', window: 'win', labelledBy: [], ...extra };
}

test('the element under a point is the control a person meant: text inside a button is the button, a label its field', () => {
  const nodes = [
    node('a/0', 'push button', 'Save', [100, 100, 80, 30]),
    node('a/0/0', 'label', 'Save', [110, 105, 40, 20], { parent: 'a/0' }),
    node('a/1', 'label', 'Work email', [20, 200, 90, 20]),
    node('a/2', 'entry', 'Work email', [120, 195, 200, 30], { labelledBy: ['a/1'], value: 'ada@example.com' }),
    node('a/3', 'password text', 'Password', [120, 245, 200, 30], { states: ['focused', 'focusable'] }),
    node('a/4', 'paragraph', '', [20, 300, 400, 20], { value: 'Some words' }),
  ];
  assert.equal(elementAt(nodes, 120, 110, 'click')?.path, 'a/0');
  assert.equal(elementAt(nodes, 30, 210, 'click')?.path, 'a/2');
  assert.equal(elementAt(nodes, 200, 210, 'field')?.path, 'a/2');
  assert.equal(elementAt(nodes, -1, -1, 'field')?.path, 'a/3', 'the focused field, where the point holds none');
  assert.equal(elementAt(nodes, 50, 305, 'click')?.path, 'a/4');
  assert.equal(elementAt(nodes, 900, 900, 'click'), null);
  // A label that holds its box, or words beside a box of the same name, are the box.
  const held = [node('b/0', 'label', 'Email me', [20, 400, 120, 20]), node('b/0/0', 'check box', 'Email me', [20, 402, 14, 14], { parent: 'b/0' })];
  assert.equal(elementAt(held, 80, 410, 'click')?.path, 'b/0/0');
  const beside = [node('c/0', 'section', '', [0, 500, 600, 40]), node('c/0/0', 'radio button', 'Weekly', [20, 510, 14, 14], { parent: 'c/0' }), node('c/0/1', 'static', 'Weekly', [40, 508, 60, 18], { parent: 'c/0' })];
  assert.equal(elementAt(beside, 60, 515, 'click')?.path, 'c/0/0');
  // As Chromium shows a wrapped label now and then: the box without a name, its words as text right beside it.
  // The words are the box and name it; words farther off, or on another row, are not its label.
  const unnamed = [
    node('d/0', 'document web', 'Drafts', [0, 0, 1366, 768]),
    node('d/0/0', 'check box', '', [44, 43, 13, 13], { parent: 'd/0' }),
    node('d/0/1', 'static', 'Email me updates', [61, 40, 150, 21], { parent: 'd/0' }),
    node('d/0/2', 'static', 'Far away', [400, 40, 80, 21], { parent: 'd/0' }),
    node('d/0/3', 'static', 'Next line', [61, 80, 80, 21], { parent: 'd/0' }),
  ];
  assert.equal(elementAt(unnamed, 137, 50, 'click')?.path, 'd/0/0');
  assert.equal(nameOf(unnamed[1], unnamed), 'Email me updates');
  assert.equal(elementAt(unnamed, 420, 50, 'click')?.path, 'd/0/2');
  assert.equal(elementAt(unnamed, 100, 90, 'click')?.path, 'd/0/3');
  // A field is named by its label, never by what was typed into it.
  assert.equal(nameOf(nodes[3], nodes), 'Work email');
  assert.equal(nameOf({ ...nodes[3], labelledBy: [], name: '' }, nodes), null);
  assert.equal(nameOf(nodes[5], nodes), 'Some words');
});

test('names that are ids, times, dates or long sentences are not used; secrets are named by their label', () => {
  for (const name of ['Save', 'Work email', "Don't save", 'Row 2 of Carol']) assert.ok(usableName(name), name);
  for (const name of ['', '   ', 'button1', 'entry_name', '12:45', 'Created 2026-11-28', 'id 5f3a9c0e1b', '42', 'x'.repeat(61)]) assert.ok(!usableName(name), name);
  assert.equal(secretName('Password'), 'PASSWORD');
  assert.equal(secretName('Work password:'), 'WORK_PASSWORD');
  assert.equal(secretName('Mot de passe (été)'), 'MOT_DE_PASSE_ETE');
  assert.equal(secretName(null), 'SECRET');
  assert.equal(secretName('2nd PIN'), 'SECRET_2ND_PIN');
  assert.equal(stepText.typeInto("it's", "the 'Note' field"), `I type "it's" into the 'Note' field`);
});

test('a box found again is the element when it is the same box, or the words inside it', () => {
  const button = { x: 100, y: 100, width: 80, height: 30 };
  assert.ok(sameElement(button, button));
  assert.ok(sameElement({ x: 110, y: 105, width: 40, height: 20 }, button));
  assert.ok(!sameElement({ x: 300, y: 100, width: 80, height: 30 }, button));
  assert.ok(!sameElement({ x: 0, y: 0, width: 1000, height: 700 }, button), 'a window around it is not it');
});
