import fs from 'fs';
import path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import type { Client } from '../lib/sdk';
import type { Box } from '../lib/types/screen';
import { clientOnPage, newClient, testState } from '../test/helpers/glance';
import { Figure, figure, withRatio } from './stats';
import { now, Observer } from './appear/paint-observer';
import { sleep } from '../lib/util/wait';

/**
 * How soon a find that waits for something to appear returns after it is on
 * the screen. The moment it is on the screen comes from an observer of our
 * own (bench/appear/observer.js): a process with its own X connection that
 * reads the target's region as fast as the X server answers, independent of
 * everything Glance does. A trial's latency is the find's return minus the
 * region's last change once it holds still: negative for a find that returned
 * before an animation's last frame (the run says how many did).
 */
const HERE = path.join(__dirname, 'appear');
const TRIALS = 7;
/** The target's region holds still this long after its last change: it shows its final frame. */
const SETTLED_MS = 300;
const SETTLE_BOUND_MS = 3000;

interface Case {
  name: string;
  /** What the find waits for. */
  target: string;
  /** Makes the target appear (or, for a program that changes by itself, waits until it is about to). */
  trigger(client: Client): Promise<void>;
  /** Back to before the trigger. */
  reset(client: Client): Promise<void>;
}

const pad = (box: Box): Box => ({ x: Math.max(0, box.x - 4), y: Math.max(0, box.y - 4), width: box.width + 8, height: box.height + 8 });

/**
 * Latencies of `TRIALS` finds, after one that fills the cache and says where
 * the target shows. `holds`, when given, gets each trial's longest hold of
 * this process's event loop, the finder's thread: while it is held, the
 * find cannot hear that the screen changed.
 */
async function latencies(client: Client, test: Case, cache: boolean, holds?: number[]): Promise<number[]> {
  await test.trigger(client);
  const first = await client.find(test.target, { timeout: 10_000 });
  if (!first.found() || !first.boundingBox) throw new Error(`${test.name}: '${test.target}' was not found: ${first.reason}`);
  await client.commitCache();
  await test.reset(client);
  const observer = await Observer.start(client.getInstance()!.display!, pad(first.boundingBox));
  const times: number[] = [];
  let early = 0;
  try {
    for (let i = 0; i < TRIALS; i++) {
      await observer.report(); // from here on
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      await test.trigger(client);
      const found = await client.find(test.target, { timeout: 10_000, ...(cache ? {} : { cacheThreshold: -1 }) });
      const foundAt = now();
      // A hold is measured when the loop turns after it: one turn more, for a hold just before the return.
      await sleep(5);
      loop.disable();
      holds?.push(loop.max / 1e6);
      if (!found.found()) throw new Error(`${test.name}: '${test.target}' was not found: ${found.reason}`);
      // The region's last change once it holds still: a find that returned while it was still changing (an
      // animation's last frames) counts from its final frame, negative when it came before it.
      const changes = await observer.report();
      const bound = now() + SETTLE_BOUND_MS;
      while (now() - Math.max(foundAt, changes.at(-1)?.at ?? 0) < SETTLED_MS && now() < bound) {
        await sleep(50);
        changes.push(...(await observer.report()));
      }
      const final = changes.at(-1);
      if (!final || changes[0].at > foundAt) throw new Error(`${test.name}: the observer saw no change before the find returned`);
      if (final.at > foundAt) early++;
      times.push(foundAt - final.at);
      await test.reset(client);
    }
  } finally {
    observer.stop();
  }
  if (early) console.log(`appear: ${test.name}: ${early} of ${TRIALS} finds returned before the region's last change (counted negative)`);
  return times;
}

const click = (what: string) => async (client: Client) => { await client.find(what).click(); };

const PAGE_CASES: Case[] = [
  { name: 'after a click (shown 300 ms later)', target: "'Order confirmed'", trigger: click("'Place order' button"), reset: click("'Start over' button") },
  { name: 'after a navigation', target: "'Shipment on its way'", trigger: click("'Track shipment' link"), reset: click("'Back to orders' link") },
  { name: 'after an animation (a drawer sliding in, 400 ms)', target: "'Drawer ready'", trigger: click("'Open drawer' button"), reset: click("'Start over' button") },
];

/**
 * As the first case, but the click changes the page at once (a count), so that the find's first look, before
 * the words show, is at a screen never seen: it is read by OCR whole, while the words are about to show.
 */
const NEW_SCREEN_CASE: Case = { name: 'after a click that changes the page at once (words shown 300 ms later)', target: "'Order confirmed'", trigger: click("'Order again' button"), reset: click("'Start over' button") };

/** A GTK program that changes by itself: zenity's progress dialog, its text switching every second. */
const GTK_COMMAND = `sh -c 'while :; do echo "# Waiting for the backup"; sleep 1; echo "# Backup finished"; sleep 1; done | zenity --progress --title=Backup --text=Starting --no-cancel'`;
const GTK_CASE: Case = {
  name: 'in a GTK program (zenity)', target: "'Backup finished'",
  trigger: async (client) => { await client.find("'Waiting for the backup'", { timeout: 10_000 }); },
  reset: async () => undefined,
};

/** The machine's busy CPU time so far, in ms: every process, Glance's and the sandbox's (/proc/stat, in clock ticks of 10 ms). */
function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) * 10;
}

const CARET_TRIALS = 4;

/**
 * What a find waiting for words costs the machine while a caret blinks in a
 * focused field, against the same wait with no field focused: the machine's
 * CPU per second of waiting, in alternated trials. A blink that brought a
 * look would cost a read of the tree and of the pixels every 500 ms.
 */
async function caretCost(client: Client): Promise<Figure[]> {
  const url = `file://${path.join(HERE, 'caret.html')}`;
  const perSecond: Record<'focused' | 'none', number[]> = { focused: [], none: [] };
  for (let i = 0; i < CARET_TRIALS * 2; i++) {
    const focused = i % 2 === 0;
    await client.provision.chrome({ url });
    if (focused) await client.find('the Question field').click();
    const busy = machineBusyMs();
    const started = now();
    const found = await client.find("'Answer ready'", { timeout: 10_000 });
    if (!found.found()) throw new Error(`'Answer ready' was not found: ${found.reason}`);
    perSecond[focused ? 'focused' : 'none'].push((machineBusyMs() - busy) / ((now() - started) / 1000));
  }
  const none = figure('Chromium, a find waiting 3 to 4 s for words, no field focused: the machine\'s CPU per second (ms)', perSecond.none);
  return [none, withRatio(figure('Chromium, the same wait, a caret blinking in a focused field: the machine\'s CPU per second (ms)', perSecond.focused), none)];
}

export async function appearBench(): Promise<Figure[]> {
  const state = testState();
  const figures: Figure[] = [];
  const page = await clientOnPage(state, `file://${path.join(HERE, 'appear.html')}`);
  try {
    for (const test of PAGE_CASES) {
      figures.push(figure(`Chromium, ${test.name}: find returns after the paint, warm cache`, await latencies(page, test, true), '<= 100'));
    }
    const holds: number[] = [];
    figures.push(figure(`Chromium, ${PAGE_CASES[0].name}: find returns after the paint, no cache (tree)`, await latencies(page, PAGE_CASES[0], false, holds), '<= 100'));
    figures.push(figure('the finder\'s thread: its longest hold in each of those finds (the first look reads the whole screen by OCR)', holds));
    figures.push(figure(`Chromium, ${NEW_SCREEN_CASE.name}: find returns after the paint, no cache (tree)`, await latencies(page, NEW_SCREEN_CASE, false), '<= 100'));
    figures.push(...await caretCost(page));
  } finally {
    await page.disconnect();
  }
  const gtk = newClient(state);
  try {
    await gtk.auth();
    await gtk.connect({ keepAlive: 0 });
    await gtk.provision.app({ command: GTK_COMMAND });
    figures.push(figure(`GTK, ${GTK_CASE.name}: find returns after the paint, warm cache`, await latencies(gtk, GTK_CASE, true), '<= 100'));
    figures.push(figure(`GTK, ${GTK_CASE.name}: find returns after the paint, no cache (tree)`, await latencies(gtk, GTK_CASE, false), '<= 100'));
  } finally {
    await gtk.disconnect();
  }
  return figures;
}
