import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANSWER_QUIET_MS, InputPacer } from '../../lib/sandbox/agent/input-pacer';
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
