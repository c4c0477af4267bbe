import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addCommand, noPhases, rounded } from '../../lib/report/step-timing';
import { timingHtml } from '../../lib/report/evidence-html';

test("a step's time is split by its commands: a find's own phases, an action less its redraw wait, and the wait", () => {
  const phases = noPhases();
  addCommand(phases, { command: 'find', durationMs: 131, phases: { capture: 6, cache: 40, engine: 60, change: 25 } });
  addCommand(phases, { command: 'click', durationMs: 120.4, redraw: { waitedMs: 70 } });
  addCommand(phases, { command: 'type', durationMs: 90 });
  addCommand(phases, { command: 'assert', durationMs: 300 });
  assert.deepEqual(rounded(phases), { capture: 6, cache: 40, engine: 360, change: 25, action: 140, still: 70 });
});

test("the report shows a step's phases in ms, and a bar of their shares; a step that took no time shows nothing", () => {
  const html = timingHtml({ kind: 'timing', phases: { capture: 6, cache: 40, engine: 0, change: 0, action: 50, still: 4 } });
  assert.match(html, /capture 6 ms<\/span> · .*cache 40 ms<\/span> · .*the action 50 ms<\/span> · .*waiting for the screen to hold still 4 ms/);
  assert.doesNotMatch(html, /engine/, 'phases that took no time are left out');
  assert.match(html, /width:40\.0%/, "the cache's share of the bar");
  assert.equal(timingHtml({ kind: 'timing', phases: noPhases() }), '');
});
