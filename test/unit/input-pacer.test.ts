import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANSWER_QUIET_MS, ECHOED_QUIET_MS, INPUT_SWITCH_GAP_MS, InputPacer } from '../../lib/sandbox/agent/input-pacer';
import { sleep } from '../../lib/util/wait';

/** A screen that shows 'before' until `answerAfterMs` past the moment it is armed, then 'answer'. */
function lateAnswer(answerAfterMs: number) {
  let armedAt = Infinity;
  return {
    arm: () => { armedAt = Date.now(); },
    shows: () => (Date.now() - armedAt >= answerAfterMs ? 'answer' : 'before'),
    screen: { look: async () => (Date.now() - armedAt >= answerAfterMs ? 'answer' : 'before'), differ: (a: string, b: string) => a !== b },
  };
}

test('keys sent right after other input wait for the program\'s late answer (a shell\'s prompt) and for the screen to hold still', async () => {
  const program = lateAnswer(70);
  const pacer = new InputPacer(program.screen);
  let seen = '';
  await pacer.send('keys', async () => { program.arm(); return 1; });
  await pacer.send('keys', async () => { seen = program.shows(); return 1; });
  assert.equal(seen, 'answer', 'the second keys arrive after the answer to the first');
});

test('keys after a pause, and clicks, are sent at once', async () => {
  let looks = 0;
  const counting = new InputPacer({ look: async () => { looks++; return 'still'; }, differ: (a, b) => a !== b });
  await counting.send('keys', async () => 1);
  await sleep(ANSWER_QUIET_MS);
  await counting.send('keys', async () => 1);
  await counting.send('pointer', async () => 1);
  assert.equal(looks, 0, 'no look at the screen was needed');
});

/** A page that reports releases `echoMs` after they were sent, on a screen that holds still. */
function echoingPage(echoMs: number) {
  let handled = 0;
  return {
    echoes: { inputsHandled: () => handled },
    send: (releases: number) => async () => { setTimeout(() => { handled += releases; }, echoMs); return releases; },
  };
}
const stillScreen = { look: async () => 'still', differ: (a: string, b: string) => a !== b };

async function keysAfterClick(pacer: InputPacer<string>, click: () => Promise<number>): Promise<number> {
  await pacer.send('pointer', click);
  const clicked = Date.now();
  let keysAt = 0;
  await pacer.send('keys', async () => { keysAt = Date.now(); return 1; });
  return keysAt - clicked;
}

test('keys after a click that a page reported handled wait only for a short still screen', async () => {
  const page = echoingPage(10);
  const waited = await keysAfterClick(new InputPacer(stillScreen, page.echoes), page.send(1));
  assert.ok(waited >= ECHOED_QUIET_MS - 2, `keys waited ${waited} ms: the screen must still hold still a moment`);
  assert.ok(waited < ANSWER_QUIET_MS - 30, `keys waited ${waited} ms, as long as with no report`);
});

test('keys after a click wait the full still screen while the page has not reported every release', async () => {
  const page = echoingPage(10);
  // Two releases sent (a double-click), one reported: the second may still be on its way.
  const partly = { inputsHandled: () => Math.max(0, page.echoes.inputsHandled() - 1) };
  const waited = await keysAfterClick(new InputPacer(stillScreen, partly), page.send(2));
  assert.ok(waited >= ANSWER_QUIET_MS - 2, `keys waited only ${waited} ms`);
  assert.ok(waited >= INPUT_SWITCH_GAP_MS);
});

test("a page's late report of the release before a click does not pass for the click's: keys then wait the full still screen", async () => {
  let handled = 0;
  const pacer = new InputPacer(stillScreen, { inputsHandled: () => handled });
  // A drag's release, reported 20 ms later; the click that follows is not reported while the keys wait.
  await pacer.send('pointer', async () => { setTimeout(() => { handled += 1; }, 20); return 1; });
  const waited = await keysAfterClick(pacer, async () => 1);
  assert.equal(handled, 1, 'the click was never reported');
  assert.ok(waited >= ANSWER_QUIET_MS - 2, `keys waited only ${waited} ms: the release's report was taken for the click's`);
});
