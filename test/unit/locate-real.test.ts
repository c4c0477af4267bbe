import crypto from 'crypto';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'path';
import { generateCases, readingOrder, seenOnly } from '../../bench/locate/real/generate';
import { isHit, judge, summarise } from '../../bench/locate/real/score';
import { BoundedRunner } from '../../bench/locate/real/bounded-runner';
import { nearMiss } from '../../bench/locate/real/negatives';
import { loadSources } from '../../bench/locate/real/source-list';
import type { RealCase, ScreenSnapshot, SeenElement } from '../../bench/locate/real/types';

const box = (x: number, y: number, width = 60, height = 20) => ({ x, y, width, height });
const el = (kind: SeenElement['kind'], text: string, b = box(0, 0), extra: Partial<SeenElement> = {}): SeenElement => ({ kind, text, box: b, region: 'main', ink: 0.1, ...extra });
const screen = { id: 'demo--page@1366x768', source: 'demo', part: 'held' as const, width: 1366, height: 768 };

function snapshot(): ScreenSnapshot {
  const elements = [
    el('link', 'Dashboard', box(10, 100, 200, 40), { region: 'sidebar' }),
    el('link', 'Reports', box(10, 140, 200, 40), { region: 'sidebar' }),
    el('heading', 'Customers', box(300, 80, 300, 30)),
    el('button', 'Delete', box(900, 200)), el('button', 'Delete', box(900, 240)), el('button', 'Delete', box(900, 280)),
    el('cell', 'London', box(300, 200)), el('cell', 'Paris', box(300, 240)),
    el('field', 'Email', box(300, 400, 300, 36), { placeholder: 'you@example.com', labelBox: box(300, 380, 40, 16) }),
    el('dropdown', '', box(700, 400, 200, 36), { value: 'All statuses' }),
    el('checkbox', 'Remember me', box(300, 460, 14, 14), { alsoHits: [box(320, 458, 90, 18)] }),
  ];
  const texts = [...elements.filter((e) => e.text && e.kind !== 'field').map((e) => ({ text: e.text, box: e.box })), { text: 'Email', box: box(300, 380, 40, 16) },
    { text: 'you@example.com', box: box(300, 400, 300, 36), inField: true }, { text: 'All statuses', box: box(700, 400, 200, 36), inField: true }];
  return { elements, texts, allText: 'dashboard reports customers delete london paris email remember me all statuses you@example.com' };
}

test('cases are the same on every build of the same screen', () => {
  const a = generateCases(screen, snapshot(), () => 1);
  const b = generateCases(screen, snapshot(), () => 1);
  assert.deepEqual(a, b);
  assert.ok(a.length >= 10);
  assert.equal(new Set(a.map((c) => c.id)).size, a.length);
});

test('every category is made, each positive with the box of what it names', () => {
  const cases = generateCases(screen, snapshot(), () => 1);
  const categories = new Set(cases.map((c) => c.category));
  for (const category of ['text', 'field', 'ordinal', 'negative']) assert.ok(categories.has(category as RealCase['category']), category);
  const ordinal = cases.find((c) => c.category === 'ordinal')!;
  assert.match(ordinal.description, /the (first|second|third|last) ('Delete'|Delete) button/);
  // Three 'Delete' buttons, at y 200, 240 and 280: the last is the third.
  const rank = ['first', 'second', 'third', 'last'].indexOf(ordinal.description.split(' ')[1]);
  assert.equal(ordinal.boxes[0].y, 200 + Math.min(rank, 2) * 40);
  assert.ok(!cases.some((c) => c.category === 'text' && /Delete/.test(c.description)), 'repeated text is never a plain text target');
  const dropdown = cases.find((c) => c.kind === 'dropdown by value');
  assert.ok(dropdown && /All statuses/.test(dropdown.description));
  assert.deepEqual(dropdown.boxes, [box(700, 400, 200, 36)]);
  const checkbox = cases.find((c) => c.kind === 'checkbox by label');
  assert.equal(checkbox?.boxes.length, 2, 'a checkbox is hit on its box or its label');
});

test('two fields with one label make neither a target by that label', () => {
  const snap = snapshot();
  snap.elements.push(el('radio', 'Remember me', box(300, 500, 14, 14), { labelBox: box(320, 498, 90, 18) }));
  snap.elements.find((e) => e.kind === 'checkbox')!.labelBox = box(320, 458, 90, 18);
  const cases = generateCases(screen, snap, () => 1);
  assert.ok(!cases.some((c) => c.category === 'field' && c.description.includes('Remember me')), 'the label names two controls');
  assert.ok(cases.some((c) => c.category === 'field' && c.description.includes('Email')));
});

test('a copy that may not show keeps its text from being a target, and from an ordinal', () => {
  const snap = snapshot();
  // A fourth 'Delete', an icon's name, and a 'Reports' row the sidebar cuts.
  snap.texts.push({ text: 'Delete', box: box(900, 600, 30, 30), unsure: true }, { text: 'Reports', box: box(10, 700, 200, 12), unsure: true });
  const cases = generateCases(screen, snap, () => 1);
  assert.ok(!cases.some((c) => c.category === 'ordinal' && /Delete/.test(c.description)), 'no ordinal over a copy that may not show');
  assert.ok(!cases.some((c) => c.category === 'text' && /Reports/.test(c.description)), 'a text with a second copy is not unique');
  assert.ok(cases.some((c) => c.category === 'text' && /Dashboard/.test(c.description)));
});

test('what the screenshot shows no ink for is not on the screen, but its words still keep negatives away', () => {
  const snap = snapshot();
  // 'Reports' is white on white; the field's label and shown value are seen.
  const blank = box(10, 140, 200, 40);
  const seen = seenOnly(snap, (b) => !(b.x === blank.x && b.y === blank.y));
  assert.ok(!seen.elements.some((e) => e.text === 'Reports'));
  assert.ok(!seen.texts.some((t) => t.text === 'Reports'));
  assert.ok(seen.elements.some((e) => e.kind === 'field' && e.text === 'Email'));
  assert.equal(seen.elements.length, snap.elements.length - 1);
  assert.ok(!generateCases(screen, seen, () => 1).some((c) => c.description.includes('Reports') && c.category !== 'negative'));
  assert.equal(seen.allText, snap.allText);
  // A button whose box takes in a neighbour's ink, but whose own text shows none (white on white under a navbar).
  const ghost = el('button', 'Primary', box(226, 3, 95, 41), { textBox: box(243, 15, 62, 14) });
  const withGhost = seenOnly({ ...snap, elements: [...snap.elements, ghost] }, (b) => !(b.x === 243 && b.y === 15));
  assert.ok(!withGhost.elements.includes(ghost), 'its text is what must show');
  // White digits on a pager's white dots: ink round them (the dot on a grey bar), but the text's colour is its background's.
  const dot = el('link', '2', box(627, 160, 26, 26), { textBox: box(636, 165, 8, 16), ink: 1 });
  const dark = el('link', '3', box(658, 160, 26, 26), { textBox: box(667, 165, 8, 16), ink: 0.2 });
  const onDots = seenOnly({ ...snap, elements: [...snap.elements, dot, dark] }, () => true, () => 1);
  assert.ok(!onDots.elements.includes(dot) && onDots.elements.includes(dark), 'white on white is not shown; dark on white is');
});

test('negatives are phrases the document holds nowhere', () => {
  const snap = snapshot();
  for (const c of generateCases(screen, snap, () => 1).filter((x) => x.category === 'negative')) {
    assert.equal(c.boxes.length, 0);
    const quoted = c.description.match(/'([^']+)'/)?.[1];
    if (quoted && c.kind !== 'past the last') assert.ok(!snap.allText.includes(quoted.toLowerCase()), c.description);
  }
  assert.equal(nearMiss(() => 0.5, 'Sign In', 'sign in'), 'Sign Out');
  const added = nearMiss(() => 0.5, 'Sign In', 'sign in sign out sign up')!;
  assert.match(added, /^Sign In \w+$/, 'with the opposite on the page too, a word is added instead');
});

test('reading order: lines top to bottom, then left to right', () => {
  const order = readingOrder([{ box: box(500, 102) }, { box: box(10, 300) }, { box: box(20, 100) }]).map((i) => i.box.x);
  assert.deepEqual(order, [20, 500, 10]);
});

test('a hit is the click point inside the box; a negative is a hit when nothing is found', () => {
  const positive = { boxes: [box(100, 100, 50, 20)], category: 'text' } as RealCase;
  assert.ok(isHit(positive, { box: box(110, 104, 20, 10) }));
  assert.ok(!isHit(positive, { box: box(140, 104, 40, 10) }), 'centre at 160 is outside');
  assert.ok(!isHit(positive, { box: null }));
  const negative = { boxes: [], category: 'negative' } as unknown as RealCase;
  assert.ok(isHit(negative, { box: null }));
  assert.ok(!isHit(negative, { box: box(0, 0) }));
  const failed = judge(positive, null, 'no answer within 20000 ms');
  assert.ok(!failed.ok && failed.got.includes('no answer'));
  const summary = summarise([failed, judge(positive, { box: box(110, 104, 20, 10) })].map((o) => ({ ...o, case: { ...o.case, part: 'held', source: 's', resolution: '1366x768', kind: 'button' } })));
  assert.equal(summary.byPart.held.all.accuracy, 50);
  assert.equal(summary.errors, 1);
});

test('the source list is pinned and keeps out the packages reserved for acceptance', () => {
  const sources = loadSources();
  // The projects kept for acceptance, named by the hash of a name fragment so that they appear nowhere in the project.
  const reservedFragments = new Set(['40c594ed634a48a2', 'cecbefb917e4ce23', '0bd76f18b30bfa0f', 'e55488cfd936d098', 'db128a8d801f85e7',
    '017fc830a4233f97', '1559142064ebc156', '5035d82cb1aa24b8', '5d727182194a8de0']);
  const lengths = [6, 7, 8, 9, 10];
  const reserved = { test: (name: string) => lengths.some((n) => [...Array(Math.max(0, name.length - n + 1)).keys()]
    .some((i) => reservedFragments.has(crypto.createHash('sha256').update(name.toLowerCase().slice(i, i + n)).digest('hex').slice(0, 16)))) };
  assert.ok(sources.web.length >= 10);
  for (const s of sources.web) {
    assert.match(s.version, /^\d+\.\d+\.\d+$/, `${s.name} is pinned to an exact version`);
    assert.ok(!reserved.test(s.name), `${s.name} is reserved`);
    assert.ok(s.license && s.pages.length, s.name);
  }
  // Web packages and desktop programs (a program run in two ways is one source) together: at most half are looked at while tuning.
  const all = [...sources.web.map((s) => [s.name, s.part]), ...new Map(sources.desktop.map((s) => [s.app, s.part])).entries()];
  const tuning = all.filter(([, part]) => part === 'tune').length;
  assert.ok(sources.web.some((s) => s.part === 'tune') && tuning <= all.length / 2, `at most half the sources are for tuning (${tuning} of ${all.length})`);
  // Desktop programs: Debian packages, none reserved, both parts present.
  assert.ok(sources.desktop.length >= 5);
  for (const s of sources.desktop) {
    assert.ok(!reserved.test(s.name) && !reserved.test(s.command), `${s.name} (${s.command}) is reserved`);
    assert.ok(s.license && s.app && s.command, s.name);
  }
  assert.deepEqual([...new Set(sources.desktop.map((s) => s.part))].sort(), ['held', 'tune']);
});

test('the bounded runner survives a job that throws, hangs, crashes or eats memory, and goes on', async () => {
  const runner = new BoundedRunner<string, string>(path.join(__dirname, '..', 'helpers', 'flaky-worker.js'), { timeoutMs: 3000, maxHeapMb: 64, execArgv: ['-r', path.join(__dirname, '..', '..', 'lib', 'runtime', 'register.js')] });
  try {
    assert.deepEqual(await runner.run('a'), { ok: true, value: 'echo a' });
    const thrown = await runner.run('throw');
    assert.ok(!thrown.ok && /gave up/.test(thrown.error));
    const hung = await runner.run('hang');
    assert.ok(!hung.ok && /no answer within 3000 ms/.test(hung.error));
    const crashed = await runner.run('crash');
    assert.ok(!crashed.ok && /died \(exit 70\)/.test(crashed.error));
    const grown = await runner.run('grow');
    assert.ok(!grown.ok && /died/.test(grown.error), grown.ok ? '' : grown.error);
    assert.deepEqual(await runner.run('b'), { ok: true, value: 'echo b' });
    assert.equal(runner.restarts, 3);
  } finally {
    await runner.stop();
  }
});

test('desktop screens: the accessibility tree gives the same elements, fields labelled by their relation', async () => {
  const { snapshotFromTree } = await import('../../bench/locate/real/desktop');
  const node = (path: string, role: string, name: string, b = box(10, 10), extra: Record<string, unknown> = {}) => ({
    path, parent: null, role, name, description: '', value: null, states: [] as string[], box: b, app: 'demo', window: 'Demo', labelledBy: [] as string[], ...extra,
  });
  const snap = snapshotFromTree([
    node(':1/0', 'push button', 'Save', box(10, 10)),
    node(':1/1', 'label', 'Name', box(10, 50, 40, 16)),
    node(':1/2', 'text', '', box(60, 48, 200, 24), { states: ['editable'], value: 'Alice', labelledBy: [':1/1'] }),
    node(':1/3', 'check box', 'Remember me', box(10, 90, 100, 18)),
    node(':1/4', 'push button', 'Off screen', box(2000, 10)),
    // A toolbar button drawn as an icon: its name is a tooltip, not text on the screen.
    node(':1/5', 'push button', 'Undo', box(200, 10, 32, 31)),
    // A row a list's edge cuts to 8 px: no target, but a copy of its text all the same.
    node(':1/6', 'table cell', 'Save', box(300, 760, 80, 8)),
    // A sidebar that scrolls shows 16 px of its last 55 px item: the item's text may be hidden.
    ...[0, 1, 2].map((i) => node(`:1/7/${i}`, 'link', `Section ${i}`, box(0, 200 + i * 55, 300, 55))),
    node(':1/7/3', 'link', 'Maps', box(0, 365, 300, 16)),
    // Checkable buttons Qt calls check boxes: a path bar's 'usr' shows as a button; a view switch as an icon.
    node(':1/8', 'check box', 'usr', box(700, 179, 35, 22)),
    node(':1/9', 'check box', 'Icon View', box(539, 175, 32, 31)),
    // A window's title shows in the bar the window manager draws above it.
    node(':1', 'frame', 'Demo window', box(300, 150, 640, 480)),
    // A heading the screen's bottom edge cuts: its box, cut to the screen, fits; the tree says it is partly off.
    node(':1/10', 'heading', 'Nick Daniel', box(1080, 757, 71, 11), { partlyOffScreen: true }),
  ], { width: 1366, height: 768 });
  assert.deepEqual(snap.elements.map((e) => `${e.kind}:${e.text}`), [
    'button:Save', 'text:Name', 'field:Name', 'checkbox:Remember me', 'link:Section 0', 'link:Section 1', 'link:Section 2', 'button:usr',
  ]);
  assert.equal(snap.elements[2].value, 'Alice');
  assert.deepEqual(snap.texts.filter((t) => t.text === 'Save').map((t) => !!t.unsure), [false, true]);
  assert.deepEqual(snap.texts.filter((t) => t.unsure).map((t) => t.text), ['Undo', 'Save', 'Maps', 'Icon View', 'Nick Daniel', 'Demo window']);
  assert.deepEqual(snap.texts.find((t) => t.text === 'Demo window')!.box, box(300, 128, 640, 22));
  assert.ok(snap.allText.includes('off screen'), 'hidden names still keep negatives away');
});

test('desktop screens: a group box\'s title labels the one control of its kind in the group, and none of two', async () => {
  const { snapshotFromTree } = await import('../../bench/locate/real/desktop');
  const node = (path: string, role: string, name: string, b = box(10, 10), extra: Record<string, unknown> = {}) => ({
    path, parent: null, role, name, description: '', value: null, states: [] as string[], box: b, app: 'demo', window: 'Demo', labelledBy: [] as string[], ...extra,
  });
  // Qt gives a group box's title as the label of every control in it, after the control's own label if it has one.
  const snap = snapshotFromTree([
    node(':1/0', 'panel', 'Sizes', box(10, 10, 400, 100)),
    node(':1/0/0', 'label', 'Width:', box(20, 40, 60, 16)),
    node(':1/0/1', 'spin button', '', box(200, 36, 190, 24), { states: ['editable'], value: '300 px', labelledBy: [':1/0/0', ':1/0'] }),
    node(':1/0/2', 'spin button', '', box(200, 70, 190, 24), { states: ['editable'], value: '6 px', labelledBy: [':1/0'] }),
    node(':1/1', 'panel', 'Palette', box(10, 130, 400, 100)),
    node(':1/1/0', 'radio button', 'Custom', box(20, 160, 80, 18), { labelledBy: [':1/1'] }),
    node(':1/1/1', 'combo box', 'airy', box(200, 190, 150, 24), { labelledBy: [':1/1'] }),
  ], { width: 1366, height: 768 });
  assert.deepEqual(snap.elements.filter((e) => e.kind === 'field' || e.kind === 'dropdown').map((e) => `${e.kind}:${e.text}:${e.value}`), [
    'field:Width::300 px', 'field::6 px', 'dropdown:Palette:airy',
  ]);
});
