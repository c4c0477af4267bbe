import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCommand, RecordingPanel } from '../../lib/sandbox/agent/preview/recording-panel';

// The preview server's side of the recording panel: the page's commands,
// checked and queued for the client; the input switched with the recording.

test("the page's commands are checked: each refusal names what the action takes", () => {
  assert.deepEqual(parseCommand({ action: 'delete', index: 3 }), { action: 'delete', index: 3 });
  assert.deepEqual(parseCommand({ action: 'repick', index: 2, points: [{ x: 1, y: 2 }, { x: 3, y: 4 }] }), { action: 'repick', index: 2, points: [{ x: 1, y: 2 }, { x: 3, y: 4 }] });
  assert.deepEqual(parseCommand({ action: 'check', kind: 'not-see', text: 'Error' }), { action: 'check', kind: 'not-see', text: 'Error' });
  assert.deepEqual(parseCommand({ action: 'check', kind: 'see', at: { x: 5, y: 6 } }), { action: 'check', kind: 'see', at: { x: 5, y: 6 } });
  assert.match(parseCommand({ action: 'delete' }) as string, /'delete' takes the step's index/);
  assert.match(parseCommand({ action: 'repick', index: 1, points: [] }) as string, /one or two points/);
  assert.match(parseCommand({ action: 'repick', index: 1, points: [{ x: 'a', y: 1 }] }) as string, /one or two points/);
  assert.match(parseCommand({ action: 'check', kind: 'maybe' }) as string, /kind 'see', 'contain' or 'not-see'/);
  assert.match(parseCommand({ action: 'check', kind: 'contain', text: 'x'.repeat(501) }) as string, /at most 500/);
  assert.match(parseCommand({ action: 'hover' }) as string, /'hover' takes its point/);
  assert.match(parseCommand({ action: 'explode' }) as string, /unknown action 'explode': the panel's actions are delete, undo, repick, check, hover, take and stop/);
  assert.match(parseCommand(null) as string, /unknown action/);
});

test('commands wait for the client in order, only while a recording runs; the input follows the recording', async () => {
  const published: { event: string; data: any }[] = [];
  const input: boolean[] = [];
  const panel = new RecordingPanel((event, data) => published.push({ event, data }), (allowed) => input.push(allowed));
  assert.equal(panel.command({ action: 'undo' }), 'nothing is being recorded');
  assert.match(panel.put({ active: true }) as string, /takes \{active, steps, suggestions, notice\}/);

  assert.equal(panel.put({ active: true, steps: [], suggestions: [], notice: null }), null);
  assert.deepEqual(input, [true]);
  // A read waits for a command, and wakes when one comes.
  const started = Date.now();
  const reading = panel.read(0, 5000);
  setTimeout(() => panel.command({ action: 'delete', index: 1 }), 50);
  assert.deepEqual(await reading, [{ action: 'delete', index: 1, seq: 1 }]);
  assert.ok(Date.now() - started < 2000, 'the read woke at the command, not at its bound');
  assert.equal(panel.command({ action: 'stop' }), null);
  assert.deepEqual((await panel.read(1, 0)).map((c) => c.action), ['stop']);
  assert.deepEqual(await panel.read(2, 0), []);

  // The same state again changes nothing; stopping switches the input off and drops what was not read.
  panel.put({ active: true, steps: [{ index: 1, keyword: 'When', text: "I click 'Save'", flags: [], picks: 1, picture: false }], suggestions: [], notice: null });
  assert.deepEqual(input, [true]);
  panel.command({ action: 'undo' });
  panel.put({ active: false, steps: [], suggestions: [], notice: null });
  assert.deepEqual(input, [true, false]);
  assert.deepEqual(await panel.read(0, 0), []);
  assert.deepEqual(published.map((p) => [p.event, p.data.active]), [['recording', true], ['recording', true], ['recording', false]]);
  panel.close();
  assert.deepEqual(input, [true, false], 'closing a stopped panel leaves the input off');
});
