import type { EventEmitter } from 'events';
import type { AgentClient } from '../../sandbox/agent-client';
import type { Service } from '../../service/service';
import type { Box } from '../../types/screen';
import type { ElementDescription, ViewInfo } from '../../types/describe';
import type { Redactor } from '../redact';
import { Gesture, GestureReader, Point, RawInput } from './gestures';
import { secretName, stepText } from './step-text';
import { inQuotes } from '../../util/quotes';
import { sleep, waitFor } from '../../util/wait';

/**
 * Records what a person does in the sandbox as steps of the step library.
 * The agent records input at the X server (from the preview, VNC, xdotool
 * or any other client; never the agent's own), the gestures are read from
 * it, and each one's element is described by the Service on a view of the
 * screen taken before the gesture: in words that find it again there.
 *
 * Views: while nothing is under way, the recorder keeps a view of the
 * screen as it last held still. A gesture is described on the view that
 * was current when its first input arrived, so a click that navigates is
 * described on the page it was made on.
 */

/** One written step, as `recorder:step` reports it and `stop()` writes it. */
export interface RecordedStep {
  /** Counts from 1; a step merged into a later one (a click into a field that is then typed into) keeps its number. */
  index: number;
  keyword: 'When' | 'Then';
  /** The step without its keyword: `I click the 'Save' button`. */
  text: string;
  /** What made it: a gesture, `hover` (the preview's hover tool), or `see` for a check (assertSeen(), check(), the preview's check tools). */
  gesture: Gesture['kind'] | 'hover' | 'see';
  /** Where the element stands, on the view it was described on. */
  box: Box | null;
  /** Why a person should look at it (not found again, coordinates only); empty when sure. */
  flags: string[];
  /** Milliseconds from the gesture's input arriving to the step being made. */
  latencyMs: number;
  /** The step this one stands for too (a double-click's first click), which is no longer among the steps. */
  replaces?: number;
}

/** A check the recorder suggests after a step (`recorder:suggestion`): shown, never written unless taken. */
export interface RecordedSuggestion {
  /** The step after which the text appeared. */
  afterStep: number;
  keyword: 'Then';
  /** `I should see 'Account created'`. */
  text: string;
  /** What it checks for, as assertSeen() takes it: `'Account created'`. */
  description: string;
}

/** The checks a person can add by pointing (the preview's check tools): seen, holding a text, not seen. */
export type CheckKind = 'see' | 'contain' | 'not-see';

/** How a step's elements are picked again: which element a point means, how many, and the step they make. */
interface Picks {
  intent: 'click' | 'field';
  count: number;
  text: (descriptions: string[]) => string;
}

/** What the recorder keeps of a step besides what it reports: the view it was made on, and how to re-pick it. */
interface StepMade {
  view?: ViewInfo | null;
  picks?: Picks | null;
  replaces?: number;
}

const onePick = (intent: Picks['intent'], text: (description: string) => string): Picks => ({ intent, count: 1, text: ([d]) => text(d) });

export interface RecorderDeps {
  agent: AgentClient;
  service: Service;
  session: string;
  emitter: EventEmitter;
  /** Typed secrets join it, so no log or event shows them. */
  redactor: Redactor;
}

/** How long a read of new input waits when nothing is open, and when something is (a held button, typing). */
const IDLE_POLL_MS = 2000;
const OPEN_POLL_MS = 100;
/** A screen that changed is viewed again once it has held still this long (by the sandbox's change count). */
const STILL_MS = 100;
/** And at the latest after this, if it never holds still (an animation). */
const STILL_BOUND_MS = 1000;
/** Where the sandbox does not count its screen's changes, a new view this often while nothing is under way. */
const UNCOUNTED_VIEW_EVERY_MS = 500;

export class Recorder {
  private readonly reader = new GestureReader();
  private readonly written: RecordedStep[] = [];
  private readonly secretValues = new Map<string, string>();
  /** Gestures read and not yet made into steps, each with the view current when its input arrived. */
  private readonly queue: { gesture: Gesture; view: ViewInfo | null; receivedAt: number; later: ViewInfo | null }[] = [];
  /** The view current from each input on: a gesture takes the one of its first input. */
  private readonly viewsBySeq: { fromSeq: number; view: ViewInfo | null }[] = [];
  private view: ViewInfo | null = null;
  private lastSeq = 0;
  /** The screen's change count the current view shows; null when the sandbox does not count. */
  private viewedCount: number | null = -1;
  private capturing = false;
  private stopping = false;
  private processing: Promise<void> = Promise.resolve();
  private readonly loops: Promise<void>[] = [];
  private failure: Error | null = null;
  private counter = 0;
  /** The view the last step was made on, until a later view is compared with it for text that appeared. */
  private suggestFrom: ViewInfo | null = null;
  private readonly suggested: RecordedSuggestion[] = [];
  /** The last scroll, while the next step may show what it scrolled to. */
  private scrolled: { step: RecordedStep; view: ViewInfo; direction: string } | null = null;
  /** The last click, while it may still be the click into the field typed into next. */
  private lastClick: { step: RecordedStep; at: { x: number; y: number }; view: ViewInfo | null } | null = null;
  /** Told when the recording has stopped. */
  private readonly stopped: (() => void | Promise<void>)[] = [];
  /** The view and picks of each step. */
  private readonly made = new WeakMap<RecordedStep, StepMade>();
  /** Edits of the list (delete, re-pick, a check added by pointing), newest last, each with its undoing. */
  private readonly edits: (() => void)[] = [];
  /** Boxes typed secrets stood in, masked on every step's picture. */
  private readonly secretBoxes: Box[] = [];
  private stopAsked: (() => void) | null = null;
  private readonly stopAsking = new Promise<void>((resolve) => { this.stopAsked = resolve; });

  private constructor(private readonly deps: RecorderDeps) {}

  static async start(deps: RecorderDeps): Promise<Recorder> {
    const recorder = new Recorder(deps);
    await deps.agent.call('POST', '/record/start', {});
    recorder.view = await deps.service.captureView(deps.session);
    recorder.loops.push(recorder.readInput(), recorder.keepViews());
    return recorder;
  }

  /** The steps made so far. */
  get steps(): readonly RecordedStep[] {
    return this.written;
  }

  /** The secrets typed, by variable name: for a replay's environment only; never written anywhere. */
  secrets(): Record<string, string> {
    return Object.fromEntries(this.secretValues);
  }

  /** Runs `done` when the recording stops (stop() waits for it). */
  onStop(done: () => void | Promise<void>): void {
    this.stopped.push(done);
  }

  /** Stops recording; resolves to the steps as Gherkin lines (flagged steps carry a comment above them). */
  async stop(): Promise<string> {
    this.stopping = true;
    await Promise.all(this.loops);
    // The agent's stop answers with the input not read yet, up to the last the display handled before it.
    const last = await this.deps.agent.call<{ events?: RawInput[] }>('POST', '/record/stop', { after: this.lastSeq }).catch((error: Error) => {
      this.failure ??= new Error(`The recording's last input could not be read from the sandbox: ${error.message}`);
      return { events: [] };
    });
    if (!this.failure) this.took(last.events ?? []);
    for (const gesture of this.reader.flush()) this.enqueue(gesture);
    await this.processing;
    for (const done of this.stopped.splice(0)) await done();
    if (this.failure) throw this.failure;
    return this.gherkin();
  }

  /** The steps as Gherkin lines: the first action `When`, the next `And`, assertions `Then`. */
  gherkin(indent = ''): string {
    const lines: string[] = [];
    let previous: RecordedStep['keyword'] | null = null;
    for (const step of this.written) {
      for (const flag of step.flags) lines.push(`${indent}# check: ${flag}`);
      lines.push(`${indent}${step.keyword === previous ? 'And' : step.keyword} ${step.text}`);
      previous = step.keyword;
    }
    return lines.join('\n');
  }

  private async readInput(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.readOnce(this.reader.open ? OPEN_POLL_MS : IDLE_POLL_MS);
      } catch (error) {
        this.failure = error as Error;
        this.stopping = true;
      }
    }
  }

  /** The input the sandbox recorded after the input `seq`, waiting up to `wait` ms for some when there is none yet. */
  private async inputAfter(seq: number, wait: number): Promise<RawInput[]> {
    const { events } = await this.deps.agent.call<{ events: RawInput[] }>('GET', `/record/events?after=${seq}&timeoutMs=${wait}`, undefined, wait + 5_000);
    return events;
  }

  /** Whether the sandbox has recorded a button or a key going down or up after the input `seq` (read by now or not). */
  private async pressedSince(seq: number): Promise<boolean> {
    const events = await this.inputAfter(seq, 0).catch(() => [] as RawInput[]);
    return events.some((e) => e.kind !== 'motion');
  }

  /** Reads the input recorded since the last read, waiting up to `wait` ms for some. */
  private async readOnce(wait: number): Promise<void> {
    this.took(await this.inputAfter(this.lastSeq, wait));
  }

  /** Input read: its gestures are made into steps, on the view current when it arrived. None: a pause, which ends a scroll. */
  private took(events: RawInput[]): void {
    if (events.length) {
      this.viewsBySeq.push({ fromSeq: events[0].seq, view: this.view });
      this.lastSeq = events[events.length - 1].seq;
      this.reader.push(events);
    }
    for (const gesture of events.length ? this.reader.take() : this.reader.pause()) this.enqueue(gesture);
  }

  /**
   * Text that appeared after the last step is what a person usually checks
   * next: it is suggested (`recorder:suggestion`), never written on its own;
   * `assertSeen()` writes one.
   */
  private async suggest(): Promise<void> {
    const from = this.suggestFrom;
    const step = this.written.at(-1);
    if (!from || !this.view || from === this.view || !step) return;
    this.suggestFrom = null;
    const texts = await this.deps.service.textsAdded(this.deps.session, from.viewId, this.view.viewId).catch(() => [] as string[]);
    for (const text of texts) {
      const suggestion: RecordedSuggestion = { afterStep: step.index, keyword: 'Then', text: stepText.see(inQuotes(text)), description: inQuotes(text) };
      this.suggested.push(suggestion);
      this.deps.emitter.emit('recorder:suggestion', this.deps.redactor.value({ ...suggestion }));
    }
  }

  /** The checks suggested so far: text that appeared after a step. */
  get suggestions(): readonly RecordedSuggestion[] {
    return this.suggested;
  }

  /** Writes a check as the next step: `Then I should see <description>` (a suggestion's text, or any description). */
  assertSeen(description: string): RecordedStep {
    return this.edited(this.add('Then', stepText.see(description), 'see', null, Date.now(), { view: this.view, picks: onePick('click', stepText.see) }));
  }

  /**
   * Writes a check by pointing, as the preview's check tools do: `see`, the
   * element at `at` is shown (`Then I should see the 'Saved' label`);
   * `contain`, the element at `at` holds `text`; `not-see`, `text` is not
   * shown. Described on the screen as it is now.
   */
  async check(kind: CheckKind, options: { at?: Point; text?: string }): Promise<RecordedStep> {
    const text = options.text ?? '';
    if (kind !== 'see' && !text.trim()) throw new Error(`A '${kind}' check needs the text to check for; give { text: '…' }.`);
    if ([...this.secretValues.values()].some((secret) => text.includes(secret))) throw new Error("That text holds a secret typed in this recording; a check may not write it. Check the field's label instead.");
    if (kind === 'not-see') return this.edited(this.add('Then', stepText.notSee(inQuotes(text)), 'see', null, Date.now(), { view: this.view }));
    if (!options.at) throw new Error(`A '${kind}' check needs the point of the element it checks; give { at: { x, y } }.`);
    const picks = kind === 'see' ? onePick('click', stepText.see) : onePick('click', (d) => stepText.contain(d, text));
    const { view, found } = await this.pickedNow([options.at], picks);
    return this.edited(this.add('Then', picks.text(found.map((f) => f.description!)), 'see', merged(found), Date.now(), { view, picks }));
  }

  /** Writes a hover over the element at a point (the preview's hover tool), and moves the pointer there so the app shows it. */
  async hoverAt(at: Point): Promise<RecordedStep> {
    const picks = onePick('click', stepText.hover);
    const { view, found } = await this.pickedNow([at], picks);
    await this.deps.agent.call('POST', '/pointer', { action: 'hover', x: Math.round(at.x), y: Math.round(at.y) });
    return this.edited(this.add('When', picks.text(found.map((f) => f.description!)), 'hover', merged(found), Date.now(), { view, picks }));
  }

  /** Deletes a step (the preview's Delete); undo() brings it back. */
  remove(index: number): void {
    const at = this.position(index);
    const [step] = this.written.splice(at, 1);
    const before = this.written[at - 1] ?? null;
    this.edits.push(() => this.written.splice(before ? this.written.indexOf(before) + 1 : 0, 0, step));
    this.changed();
  }

  /**
   * Describes a step's element again at other points of the screen as it is
   * now (the preview's Re-pick: one point, two for a drag); the new step
   * takes the old one's place and `replaces` it. undo() brings the old back.
   */
  async repick(index: number, points: Point[]): Promise<RecordedStep> {
    const old = this.written[this.position(index)];
    const picks = this.made.get(old)?.picks;
    if (!picks) throw new Error(`Step ${index} ('${old.text}') names no element, so there is none to re-pick.`);
    if (points.length !== picks.count) throw new Error(`Step ${index} ('${old.text}') takes ${picks.count} point(s) to re-pick, got ${points.length}.`);
    const { view, found } = await this.pickedNow(points, picks);
    const step = this.build(old.keyword, picks.text(found.map((f) => f.description!)), old.gesture, merged(found), Date.now(), { view, picks, replaces: old.index });
    // The list may have changed while the points were described.
    const at = this.position(index);
    this.written.splice(at, 1, step);
    this.edits.push(() => {
      const now = this.written.indexOf(step);
      if (now >= 0) this.written.splice(now, 1, old);
    });
    this.announce(step);
    return step;
  }

  /** Takes back the last edit of the list (a delete, a re-pick, a check or hover added by pointing); false when there is none. */
  undo(): boolean {
    const undoing = this.edits.pop();
    if (!undoing) return false;
    undoing();
    this.changed();
    return true;
  }

  /** A step's picture (PNG): the screen it was made on, around its element, outlined; secrets' fields masked. Null once its view is gone. */
  async pictureOf(index: number): Promise<Buffer | null> {
    const step = this.written.find((s) => s.index === index);
    const view = step && this.made.get(step)?.view;
    if (!step || !view) return null;
    const png = await this.deps.service.viewPicture(this.deps.session, { viewId: view.viewId, box: step.box, masks: this.secretBoxes }).catch(() => null);
    return png === null ? null : Buffer.from(png, 'base64');
  }

  /** How many points re-picking a step takes (0: it names no element). */
  picksOf(step: RecordedStep): number {
    return this.made.get(step)?.picks?.count ?? 0;
  }

  /** Asks whoever runs the recording to stop it (the preview's Stop button). */
  requestStop(): void {
    this.stopAsked?.();
  }

  /** Resolves when the preview's Stop button (requestStop()) asks for the recording to stop; the caller then calls stop(). */
  stopRequested(): Promise<void> {
    return this.stopAsking;
  }

  /** The step's place in the list, or an error naming the steps there are. */
  private position(index: number): number {
    const at = this.written.findIndex((s) => s.index === index);
    if (at < 0) throw new Error(`There is no step ${index}; the steps are ${this.written.map((s) => s.index).join(', ') || 'none yet'}.`);
    return at;
  }

  /** Each point described on a view taken now (what the person sees while pointing), every one in words. */
  private async pickedNow(points: Point[], picks: Picks): Promise<{ view: ViewInfo; found: ElementDescription[] }> {
    const view = await this.deps.service.captureView(this.deps.session);
    const found: ElementDescription[] = [];
    for (const point of points) {
      const one = await this.describe(view, point, picks.intent);
      if (!one.description) throw new Error(`Nothing at ${Math.round(point.x)}, ${Math.round(point.y)} has words to name it by; point at a control or a text.`);
      found.push(one);
    }
    return { view, found };
  }

  /** A step added by an edit: undo() takes it back. */
  private edited(step: RecordedStep): RecordedStep {
    this.edits.push(() => {
      const at = this.written.indexOf(step);
      if (at >= 0) this.written.splice(at, 1);
    });
    return step;
  }

  /** Whether a gesture is open or waiting: the view must stay the one it was made on. */
  private get busy(): boolean {
    return this.reader.open || this.queue.length > 0;
  }

  /** Keeps a view of the screen as it last held still, while no gesture is open or waiting. */
  private async keepViews(): Promise<void> {
    /** The change count the current view shows. */
    let viewed = -1;
    while (!this.stopping) {
      if (this.busy) {
        await sleep(OPEN_POLL_MS);
        continue;
      }
      const count = await this.deps.agent.screenChanges(viewed, OPEN_POLL_MS * 3).catch(() => null);
      if (this.stopping) return;
      if (count === viewed) continue;
      // A sandbox that does not count its screen's changes is viewed at a steady pace.
      const still = count === null ? await sleep(UNCOUNTED_VIEW_EVERY_MS).then(() => null) : await this.stillAfter(count);
      if (this.busy || this.stopping) continue;
      // Input can reach this reader later than the screen shows what it did. A gesture is described on the
      // screen before it, never on one that shows it done: no view is taken while a press (a button or a key)
      // is still unread, and one taken while a press came is dropped. Motion is no gesture: a hover's effect
      // is what the person saw before clicking.
      const readUpTo = this.lastSeq;
      if (await this.pressedSince(readUpTo)) continue;
      this.capturing = true;
      try {
        const view = await this.deps.service.captureView(this.deps.session).catch(() => null);
        if (!view || this.stopping || await this.pressedSince(readUpTo)) continue;
        this.view = view;
        this.viewedCount = still;
        if (still !== null) viewed = still;
        await this.suggest();
      } finally {
        this.capturing = false;
      }
    }
  }

  /**
   * Resolves once the recorder has caught up with the screen: no gesture is
   * waiting, and its view shows the screen as it is now. A person looks
   * before acting; a script driving the sandbox (or a preview's "ready"
   * light) waits for this instead.
   */
  async idle(timeoutMs = 10_000): Promise<void> {
    let state = '';
    await waitFor('the recorder to catch up with the screen', async () => {
      if (this.failure) throw this.failure;
      const now = this.busy || this.capturing ? undefined : await this.deps.agent.screenChanges(-1, 0).catch(() => null);
      state = this.busy ? `${this.queue.length} gestures waiting${this.reader.open ? ', one open' : ''}` : this.capturing ? 'viewing the screen' : `the screen changed (${now} against ${this.viewedCount} in the view)`;
      return now === null || (now !== undefined && now === this.viewedCount) || undefined;
    }, { timeoutMs, intervalMs: 20 }).catch((error) => {
      throw new Error(`${(error as Error).message} Last: ${state}.`);
    });
  }

  /** The change count once the screen has held still for STILL_MS (at most STILL_BOUND_MS on). */
  private async stillAfter(count: number): Promise<number> {
    const until = Date.now() + STILL_BOUND_MS;
    let last = count;
    while (Date.now() < until) {
      const next = await this.deps.agent.screenChanges(last, STILL_MS).catch(() => null);
      if (next === null || next === last) break;
      last = next;
    }
    return last;
  }

  private enqueue(gesture: Gesture): void {
    // Gestures come in the order of their inputs: views older than this gesture's are no later gesture's either.
    let at = this.viewsBySeq.length - 1;
    while (at >= 0 && this.viewsBySeq[at].fromSeq > gesture.seq) at--;
    const view = at >= 0 ? this.viewsBySeq[at].view : this.view;
    if (at > 0) this.viewsBySeq.splice(0, at);
    // A rest is read when the input after it arrives: the view by then shows what the rest made appear.
    this.queue.push({ gesture, view, receivedAt: Date.now(), later: this.view });
    this.processing = this.processing.then(() => this.processNext()).catch((error) => { this.failure ??= error; });
  }

  private async processNext(): Promise<void> {
    const next = this.queue[0];
    if (!next) return;
    try {
      const view = next.view ?? (await this.deps.service.captureView(this.deps.session));
      if (next.gesture.kind === 'rest') await this.rested(next.gesture, view, next.later, next.receivedAt);
      else await this.make(next.gesture, view, next.receivedAt);
    } finally {
      this.queue.shift();
    }
  }

  private describe(view: ViewInfo, at: { x: number; y: number }, intent: 'click' | 'field'): Promise<ElementDescription> {
    return this.deps.service.describeAt(this.deps.session, { viewId: view.viewId, x: at.x, y: at.y, intent });
  }

  /**
   * A pointer held still is a hover where text appeared while it rested (a
   * tooltip, a menu that opens on hover): what the view after the rest
   * shows that the one before did not. Other rests are no step.
   */
  private async rested(rest: Extract<Gesture, { kind: 'rest' }>, view: ViewInfo, later: ViewInfo | null, receivedAt: number): Promise<void> {
    if (!later || later === view) return;
    const appeared = await this.deps.service.textsAdded(this.deps.session, view.viewId, later.viewId).catch(() => [] as string[]);
    if (!appeared.length) return;
    const found = await this.describe(view, rest.at, 'click');
    if (!found.description) return;
    this.suggestFrom = view;
    this.lastClick = null;
    this.add('When', stepText.hover(found.description), 'hover', found, receivedAt, { view, picks: onePick('click', stepText.hover) });
  }

  private async make(gesture: Exclude<Gesture, { kind: 'rest' }>, view: ViewInfo, receivedAt: number): Promise<void> {
    this.suggestFrom = view;
    switch (gesture.kind) {
      case 'click': {
        const found = await this.describe(view, gesture.at, 'click');
        if (found.description) await this.scrolledUntilSeen(found.description, receivedAt);
        const text = !found.description ? stepText.clickAt(gesture.at.x, gesture.at.y)
          : gesture.button === 'right' ? stepText.rightClick(found.description)
            : gesture.count === 2 ? stepText.doubleClick(found.description) : stepText.click(found.description);
        // A double-click stands for the click just written, its first half.
        if (gesture.count === 2 && this.lastClick && this.written.at(-1) === this.lastClick.step) this.written.pop();
        const picks = onePick('click', gesture.button === 'right' ? stepText.rightClick : gesture.count === 2 ? stepText.doubleClick : stepText.click);
        const step = this.add('When', text, gesture.kind, found, receivedAt, { view, picks, replaces: gesture.count === 2 ? this.lastClick?.step.index : undefined });
        this.lastClick = gesture.button === 'left' && gesture.count === 1 ? { step, at: gesture.at, view } : null;
        return;
      }
      case 'drag': {
        const [from, to] = [await this.describe(view, gesture.from, 'click'), await this.describe(view, gesture.to, 'click')];
        const picks: Picks = { intent: 'click', count: 2, text: ([a, b]) => stepText.drag(a, b) };
        if (from.description && to.description) this.add('When', stepText.drag(from.description, to.description), gesture.kind, merged([from, to]), receivedAt, { view, picks });
        else this.add('When', stepText.clickAt(gesture.from.x, gesture.from.y), gesture.kind, { ...from, flags: ['a drag between places that have no words: only its start is written, as a click at coordinates'] }, receivedAt, { view, picks });
        return;
      }
      case 'type':
        return this.typed(gesture, view, receivedAt);
      case 'press':
        this.lastClick = null;
        this.add('When', stepText.press(gesture.keys), gesture.kind, null, receivedAt, { view });
        return;
      case 'scroll':
        this.lastClick = null;
        this.scrolled = { step: this.add('When', stepText.scroll(gesture.direction, gesture.notches * 120), gesture.kind, null, receivedAt, { view }), view, direction: gesture.direction };
        return;
    }
  }

  /**
   * A scroll followed by a step on an element that the screen before the
   * scroll did not show: the scroll was to bring it into view, and is
   * written so (`I scroll down until I see …`), which holds when the page's
   * length changes, where a count of pixels would not.
   */
  private async scrolledUntilSeen(description: string, receivedAt: number): Promise<void> {
    const scrolled = this.scrolled;
    this.scrolled = null;
    if (!scrolled || this.written.at(-1) !== scrolled.step) return;
    if (await this.deps.service.findOnView(this.deps.session, scrolled.view.viewId, description).catch(() => undefined) !== null) return;
    this.written.pop();
    this.add('When', stepText.scrollUntil(scrolled.direction, description), 'scroll', null, receivedAt, { view: scrolled.view, picks: onePick('click', (d) => stepText.scrollUntil(scrolled.direction, d)), replaces: scrolled.step.index });
  }

  /** Text typed: into the field clicked just before (that click is then part of the step), or the one with the focus. */
  private async typed(gesture: Extract<Gesture, { kind: 'type' }>, view: ViewInfo, receivedAt: number): Promise<void> {
    const click = this.lastClick;
    this.lastClick = null;
    const field = click ? await this.describe(click.view ?? view, click.at, 'field') : await this.describe(view, { x: -1, y: -1 }, 'field');
    let value = gesture.text;
    if (field.secret) {
      const name = this.secretFor(field.name, value);
      this.deps.redactor.add(value);
      if (field.box) {
        this.secretBoxes.push(field.box);
        // The dashcam's clip of this session gets the field painted over, where one runs.
        await this.deps.agent.call('POST', '/dashcam/mask', { box: field.box }).catch(() => undefined);
      }
      value = `$${name}`;
    }
    if (!field.description) {
      this.add('When', stepText.type(value), gesture.kind, field.secret ? { ...field, flags: [] } : null, receivedAt, { view });
      return;
    }
    if (!click) await this.scrolledUntilSeen(field.description, receivedAt);
    // The click into the field is part of typing into it; so is the Tab that moved there.
    const previous = this.written.at(-1);
    const absorbed = previous && ((click && previous === click.step && sameBox(previous.box, field.box)) || (previous.gesture === 'press' && /^I press '(shift\+)?Tab'$/.test(previous.text)));
    if (absorbed) this.written.pop();
    this.add('When', stepText.typeInto(value, field.description), gesture.kind, field, receivedAt, { view: click?.view ?? view, picks: onePick('field', (d) => stepText.typeInto(value, d)), replaces: absorbed ? previous.index : undefined });
  }

  /** The variable a secret goes in: its field's label, numbered when another value already has that name. */
  private secretFor(label: string | null, value: string): string {
    const base = secretName(label);
    for (let n = 1; ; n++) {
      const name = n === 1 ? base : `${base}_${n}`;
      const held = this.secretValues.get(name);
      if (held === undefined || held === value) {
        this.secretValues.set(name, value);
        return name;
      }
    }
  }

  private add(keyword: RecordedStep['keyword'], text: string, kind: RecordedStep['gesture'], found: ElementDescription | null, receivedAt: number, made: StepMade = {}): RecordedStep {
    const step = this.build(keyword, text, kind, found, receivedAt, made);
    this.written.push(step);
    this.announce(step);
    return step;
  }

  private build(keyword: RecordedStep['keyword'], text: string, kind: RecordedStep['gesture'], found: ElementDescription | null, receivedAt: number, made: StepMade): RecordedStep {
    const step: RecordedStep = {
      index: ++this.counter, keyword, text, gesture: kind, box: found?.box ?? null, flags: found?.flags ?? [], latencyMs: Date.now() - receivedAt,
      ...(made.replaces !== undefined ? { replaces: made.replaces } : {}),
    };
    this.made.set(step, made);
    return step;
  }

  /** A new step: `recorder:step`, then the list as it now stands. */
  private announce(step: RecordedStep): void {
    this.deps.emitter.emit('recorder:step', this.deps.redactor.value({ ...step }));
    this.changed();
  }

  /** The list changed: `recorder:steps` carries it whole. */
  private changed(): void {
    this.deps.emitter.emit('recorder:steps', this.deps.redactor.value(this.written.map((step) => ({ ...step }))));
  }
}

/** One description of several found points: the first's box, every one's flags. */
function merged(found: ElementDescription[]): ElementDescription {
  return { ...found[0], flags: found.flatMap((f) => f.flags) };
}

function sameBox(a: Box | null, b: Box | null): boolean {
  return !!a && !!b && Math.abs(a.x - b.x) < 3 && Math.abs(a.y - b.y) < 3 && Math.abs(a.width - b.width) < 3 && Math.abs(a.height - b.height) < 3;
}
