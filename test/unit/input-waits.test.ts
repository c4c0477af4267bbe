import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANSWER_QUIET_MS, InputPacer } from '../../lib/sandbox/agent/input-pacer';
import { sleep } from '../../lib/util/wait';
import { RedrawWatch } from '../../lib/sandbox/agent/redraw';
import type { Frame } from '../../lib/sandbox/agent/driver';

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
  await pacer.send('keys', async () => program.arm());
  const seen = await pacer.send('keys', async () => program.shows());
  assert.equal(seen, 'answer', 'the second keys arrive after the answer to the first');
});

test('keys after a pause, and clicks, are sent at once', async () => {
  let looks = 0;
  const counting = new InputPacer({ look: async () => { looks++; return 'still'; }, differ: (a, b) => a !== b });
  await counting.send('keys', async () => undefined);
  await sleep(ANSWER_QUIET_MS);
  await counting.send('keys', async () => undefined);
  await counting.send('pointer', async () => undefined);
  assert.equal(looks, 0, 'no look at the screen was needed');
});

test("an action whose change shows late (a busy browser's scroll) is waited for within its change window, and only there", async () => {
  // A 16x16 screen that turns from black to white 150 ms after it is armed.
  let armedAt = Infinity;
  const frame = () => {
    const data = Buffer.alloc(16 * 16 * 4, Date.now() - armedAt >= 150 ? 0xff : 0);
    return { width: 16, height: 16, data } as unknown as Frame;
  };
  const watch = new RedrawWatch(async () => frame(), async () => true);
  const request = { threshold: 0.05, network: false, timeoutMs: 3000 };
  await watch.mark('quick');
  armedAt = Date.now();
  assert.equal((await watch.wait('quick', request)).changed, false, 'the default window is over before the change');
  armedAt = Infinity;
  await watch.mark('scroll');
  armedAt = Date.now();
  const scroll = await watch.wait('scroll', { ...request, changeWindowMs: 500 });
  assert.equal(scroll.changed, true);
  assert.equal(scroll.settled, true);
});
