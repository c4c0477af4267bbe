import { stepsFor } from './define';
import { sleep } from '../lib/util/wait';

// When: scrolling and waiting.

const step = stepsFor('When');

const STEP_PX = 300;
const MAX_SCROLL_PX = 10_000;

step('I scroll {direction}', async function ([direction]) {
  await this.client.scroll(direction as 'down', { amount: STEP_PX });
});

step('I scroll {direction} {int} pixels', async function ([direction, pixels]) {
  await this.client.scroll(direction as 'down', { amount: Number(pixels) });
});

step('I scroll {direction} until I see (the ){element}', async function ([direction, description], options) {
  for (let scrolled = 0; ; scrolled += STEP_PX) {
    if ((await this.locate(description, { ...options, timeout: 0 })).found()) return;
    if (scrolled >= MAX_SCROLL_PX) throw new Error(`Scrolled ${direction} ${MAX_SCROLL_PX} px without seeing '${description}'. ${this.lastFind?.reason ?? ''}`);
    await this.client.scroll(direction as 'down', { amount: STEP_PX });
    await this.client.settle();
  }
}, { finds: true });

step('I wait {int} second(s)', async function ([seconds]) {
  await this.client.wait(Number(seconds) * 1000);
});

step('I wait {int} ms', async function ([ms]) {
  await this.client.wait(Number(ms));
});

step('I wait for (the ){element} to appear', async function ([description], options) {
  await this.mustFind(description, options);
}, { finds: true });

step('I wait for (the ){element} to disappear', async function ([description], options) {
  const timeout = options.timeout ?? 10_000;
  const deadline = Date.now() + timeout;
  for (;;) {
    // The cache answers both ways: the element's crop where it stood, or its absence on this very screen.
    const element = await this.client.find(description, { ...options, timeout: 0 });
    if (!element.found()) return;
    if (Date.now() >= deadline) throw new Error(`'${description}' was still on the screen after ${timeout / 1000} s, at ${element.x},${element.y}.`);
    await sleep(250);
  }
}, { finds: true });
