import http from 'http';
import { bearerToken, readBody, sameSecret } from './http-requests';
import { Driver, MouseButton, ScrollDirection, StackedWindow } from './driver';
import { Launcher } from './launcher';
import { Lifetime } from './lifetime';
import { runShell } from './exec';
import { ProcessGroup } from './processes';
import { ProgramSpace } from './program-space';
import { MAX_PRESSES, parseChord } from '../keys';
import { sleep } from '../../util/wait';
import { InputPacer } from './input-pacer';
import { NO_PAGES, PageActivity } from './page-loads';
import { lookAt } from './redraw';
import { captureOnChange } from './screen-changes';
import { changedShare } from '../../image/motion';
import { bgrxToRgba, encodePng } from '../../image/pixels';
import { A11yReader, SnapshotOptions } from './a11y/snapshot';
import { OWN_VERSION } from '../../util/version';

/**
 * The agent's HTTP API. Bound to loopback (or the address a self-hosted agent
 * is told to listen on) and closed to anyone without the sandbox's token.
 */
export interface AgentContext {
  id: string;
  token: string;
  driver: Driver;
  launcher: Launcher;
  processes: ProcessGroup;
  /** Absent for a self-hosted agent, which does not own its machine's lifetime. */
  lifetime?: Lifetime;
  /** Where, and as whom, the programs it starts run. */
  space: ProgramSpace;
  /** Reads the accessibility tree; by default from the session bus in the programs' environment. */
  a11y?: A11yReader;
  /**
   * Back to the desktop the sandbox started with: every program it started
   * is closed (close request, SIGTERM, SIGKILL), and a local sandbox's home
   * goes back to its seed. Resolves to how many processes were ended.
   */
  resetPrograms(): Promise<number>;
  describe(): Record<string, unknown>;
  terminate(reason: string): void;
  /** The browser's pages, which report the input they handled; none by default. */
  pages?: PageActivity;
  /** Routes of the optional parts (the dashcam, redraw detection), served with the same token. */
  routes?: Record<string, Handler>;
}

class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

type Body = Record<string, any>;
type Handler = (body: Body, url: URL, res: http.ServerResponse) => Promise<unknown>;

const POINTER_ACTIONS = ['click', 'double-click', 'right-click', 'middle-click', 'hover', 'mouse-down', 'mouse-up'] as const;
/** The button releases each pointer action sends: what a page reports back (a scroll's wheel notches count one each). */
const RELEASES: Record<(typeof POINTER_ACTIONS)[number], number> = {
  click: 1, 'double-click': 2, 'right-click': 1, 'middle-click': 1, hover: 0, 'mouse-down': 0, 'mouse-up': 1,
};
const SCROLL_DIRECTIONS: ScrollDirection[] = ['up', 'down', 'left', 'right'];
const MAX_BODY = 1024 * 1024;
/** Nodes one text-boxes request may ask about. */
const MAX_TEXT_REQUESTS = 100;
/** The texts one snapshot places in the nodes' texts (a find asks about at most three), and how long each may be. */
const MAX_SNAPSHOT_TEXTS = 8;
const MAX_SNAPSHOT_TEXT = 1000;
/** The pause between the two clicks of a double-click: well inside every toolkit's double-click time. */
const DOUBLE_CLICK_GAP_MS = 40;
/**
 * The rest before a wheel click, after the pointer moved or after the last
 * click, as a hand's wheel turns: a move and several clicks in one instant,
 * which no hand makes, is where a loaded Chromium was seen to lose a scroll.
 */
const WHEEL_CLICK_GAP_MS = 16;

function number(body: Body, key: string): number {
  const value = body[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new HttpError(400, `'${key}' must be a number, got ${JSON.stringify(value)}`);
  return value;
}

function text(body: Body, key: string): string {
  const value = body[key];
  if (typeof value !== 'string') throw new HttpError(400, `'${key}' must be a string`);
  return value;
}

/** Snapshot bounds from a query string or a JSON body; anything left out takes the reader's default. */
function snapshotOptions(source: Record<string, unknown>): SnapshotOptions {
  const options: SnapshotOptions = {};
  for (const [key, max] of [['deadlineMs', 60_000], ['maxNodes', 100_000], ['appIdleMs', 60_000]] as const) {
    const raw = source[key];
    if (raw === undefined || raw === null || raw === '') continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0 || value > max) throw new HttpError(400, `'${key}' must be a number from 1 to ${max}, got ${JSON.stringify(raw)}`);
    options[key] = value;
  }
  const texts = source.texts;
  if (texts !== undefined) {
    if (!Array.isArray(texts) || texts.length > MAX_SNAPSHOT_TEXTS || !texts.every((t) => typeof t === 'string' && t.length <= MAX_SNAPSHOT_TEXT)) {
      throw new HttpError(400, `'texts' must be a list of at most ${MAX_SNAPSHOT_TEXTS} texts of at most ${MAX_SNAPSHOT_TEXT} characters each`);
    }
    options.texts = texts;
  }
  return options;
}

function routes(ctx: AgentContext): Record<string, Handler> {
  const { driver } = ctx;
  const a11y = ctx.a11y ?? new A11yReader(ctx.space.env.DBUS_SESSION_BUS_ADDRESS, driver);
  const pages = ctx.pages ?? NO_PAGES;
  const pacer = new InputPacer({ look: () => lookAt(captureOnChange(driver)), differ: (a, b) => changedShare(a, b) > 0 }, pages);
  const click = async (button: MouseButton, times: number) => {
    for (let i = 0; i < times; i++) {
      // Clicks of a double-click come apart as a hand's do: a browser merges two presses in the same instant.
      if (i > 0) await sleep(DOUBLE_CLICK_GAP_MS);
      await driver.button(button, true);
      await driver.button(button, false);
    }
  };
  /**
   * Input sent to the browser's window reaches a page, which reports each
   * release and wheel notch: the redraw wait that follows waits for the
   * report too. (Where no browser runs, the windows are not looked up.)
   */
  const awaitPageReport = async (sentAt: () => Promise<{ x: number; y: number }>): Promise<boolean> => {
    const echoAt = pacer.lastEchoAt();
    if (echoAt === null || !pages.hasBrowser()) return false;
    const at = await sentAt();
    const stack = await driver.stack().catch(() => []);
    // A menu of the browser open now (a `<select>`'s list, opened by the press) holds the pointer: the release went to it, and the page never reports it.
    if (stack.some((w) => w.menu && pages.ownsWindow(w.pid))) return false;
    if (!pages.ownsWindow(windowAt(stack, at.x, at.y))) return false;
    pages.awaitReleases(echoAt);
    return true;
  };
  return {
    ...ctx.routes,
    'GET /health': async () => ({ ...ctx.describe(), ...OWN_VERSION }),
    'POST /session': async (body) => {
      ctx.lifetime?.attach(number(body, 'keepAlive'));
      return ctx.describe();
    },
    'POST /release': async (body) => {
      const keepAlive = number(body, 'keepAlive');
      // A self-hosted agent has no lifetime: its machine outlives every session.
      if (!ctx.lifetime) return ctx.describe();
      if (keepAlive === 0) setImmediate(() => ctx.terminate('released with keepAlive 0'));
      else ctx.lifetime.release(keepAlive);
      return ctx.describe();
    },
    'POST /terminate': async () => {
      if (!ctx.lifetime) throw new HttpError(403, 'a self-hosted agent is stopped on its own machine, not by a client');
      setImmediate(() => ctx.terminate('terminate requested'));
      return { terminating: true };
    },
    'POST /screen/shared': async (body) => {
      const path = text(body, 'path');
      if (!/^\/dev\/shm\/glance-[\w.-]+\.frame$/.test(path)) throw new HttpError(400, `frame files live in /dev/shm and are named glance-*.frame, got '${path}'`);
      await driver.captureToFile(path);
      return { width: driver.width, height: driver.height, pixelFormat: 'bgrx' };
    },
    // Long-polled: answers once the screen changed after `after`, or at `timeoutMs` (at most 10 s) with the count as it is.
    // `ignore=caret`: a drawing no bigger than a caret neither ends the wait nor counts.
    'GET /screen/changes': async (_body, url) => {
      if (!driver.changes) return { count: null };
      const after = Number(url.searchParams.get('after') ?? -1);
      const timeoutMs = Number(url.searchParams.get('timeoutMs') ?? 0);
      const ignore = url.searchParams.get('ignore');
      if (!Number.isInteger(after) || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 10_000) {
        throw new HttpError(400, `'after' must be a whole number and 'timeoutMs' 0 to 10000, got ${JSON.stringify(url.search)}`);
      }
      if (ignore !== null && ignore !== 'caret') throw new HttpError(400, `'ignore' can only be 'caret' (a caret's blink does not end the wait), got '${ignore}'`);
      return { count: await driver.changes.next(after, timeoutMs, ignore === 'caret') };
    },
    'GET /screen': async (_body, url, res) => {
      const frame = await driver.capture();
      if (url.searchParams.get('format') === 'png') {
        const png = await encodePng({ width: frame.width, height: frame.height, data: bgrxToRgba(frame.data) });
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
        res.end(png);
      } else {
        res.writeHead(200, {
          'content-type': 'application/octet-stream', 'content-length': frame.data.length,
          'x-width': frame.width, 'x-height': frame.height, 'x-pixel-format': 'bgrx',
        });
        res.end(frame.data);
      }
      return undefined;
    },
    'POST /pointer': async (body) => {
      const action = text(body, 'action') as (typeof POINTER_ACTIONS)[number];
      if (!POINTER_ACTIONS.includes(action)) throw new HttpError(400, `unknown pointer action '${action}'; use one of ${POINTER_ACTIONS.join(', ')}`);
      const pacing = await pacer.send('pointer', async () => {
        await driver.moveTo(number(body, 'x'), number(body, 'y'));
        if (action === 'click') await click('left', 1);
        else if (action === 'double-click') await click('left', 2);
        else if (action === 'right-click') await click('right', 1);
        else if (action === 'middle-click') await click('middle', 1);
        else if (action === 'mouse-down') await driver.button('left', true);
        else if (action === 'mouse-up') await driver.button('left', false);
        return RELEASES[action];
      });
      const pageReport = await awaitPageReport(() => Promise.resolve({ x: number(body, 'x'), y: number(body, 'y') }));
      return { ok: true, pacing, pageReport };
    },
    'POST /scroll': async (body) => {
      const direction = text(body, 'direction') as ScrollDirection;
      if (!SCROLL_DIRECTIONS.includes(direction)) throw new HttpError(400, `unknown scroll direction '${direction}'`);
      await pacer.send('pointer', async () => {
        if (body.x !== undefined) await driver.moveTo(number(body, 'x'), number(body, 'y'));
        const clicks = Math.max(1, Math.round(number(body, 'clicks')));
        for (let i = 0; i < clicks; i++) {
          if (i > 0 || body.x !== undefined) await sleep(WHEEL_CLICK_GAP_MS);
          await driver.wheel(direction, 1);
        }
        return clicks;
      });
      await awaitPageReport(() => driver.pointer());
      return { ok: true };
    },
    'POST /keys': async (body) => {
      const keys = parseChord(body.keys);
      await requireKeyboardFocus(driver, `the keys '${keys.join('+')}'`);
      const times = body.times === undefined ? 1 : number(body, 'times');
      if (!Number.isInteger(times) || times < 1 || times > MAX_PRESSES) throw new HttpError(400, `'times' must be a whole number from 1 to ${MAX_PRESSES}, got ${times}`);
      // Each press once the page (or the screen) says the last was handled, as a person's quick presses are.
      let pacing = await pacer.send('keys', () => driver.chord(keys));
      for (let i = 1; i < times; i++) pacing = await pacer.send('keys', () => driver.chord(keys));
      return { ok: true, pacing };
    },
    'POST /type': async (body) => {
      const typed = text(body, 'text');
      await requireKeyboardFocus(driver, 'the typed text');
      return { ok: true, pacing: await pacer.send('keys', () => driver.typeText(typed, typeof body.delay === 'number' ? body.delay : 0)) };
    },
    'POST /exec': async (body) => runShell(ctx.processes, text(body, 'code'), number(body, 'timeout'), ctx.space),
    'POST /launch/app': async (body) => ctx.launcher.app(text(body, 'command'), number(body, 'timeout')),
    'POST /launch/chrome': async (body) => ctx.launcher.chrome(text(body, 'url'), number(body, 'timeout')),
    'POST /apps/close': async () => ({ closed: await ctx.resetPrograms() }),
    'POST /focus': async (body) => ctx.launcher.focus(text(body, 'name'), number(body, 'timeout')),
    'GET /a11y': async (_body, url) => a11y.snapshot(snapshotOptions(Object.fromEntries(url.searchParams))),
    'POST /a11y': async (body) => a11y.snapshot(snapshotOptions(body)),
    'POST /a11y/text-boxes': async (body) => {
      const requests = body.requests;
      if (!Array.isArray(requests) || requests.length > MAX_TEXT_REQUESTS || !requests.every((r) => typeof r?.path === 'string' && typeof r?.text === 'string')) {
        throw new HttpError(400, `'requests' must be a list of at most ${MAX_TEXT_REQUESTS} { path, text } pairs`);
      }
      return { boxes: await a11y.textBoxes(requests, snapshotOptions(body).deadlineMs ?? 500) };
    },
    // The windows bottom to top, with their boxes and titles: where "in the 'Billing' dialog" looks.
    'GET /windows/stack': async () => driver.stack(),
    'GET /windows': async () => {
      const active = await driver.activeWindow();
      return (await driver.windows()).map((w) => ({ ...w, active: w.id === active }));
    },
  };
}

/**
 * The process of the application window at a point of the screen, when it is
 * the topmost window there (null: the desktop, a window that does not say, or
 * a menu or popup above it, which shows no page).
 */
function windowAt(stack: StackedWindow[], x: number, y: number): number | null {
  for (let i = stack.length - 1; i >= 0; i--) {
    const { box, managed, pid } = stack[i];
    if (x >= box.x && y >= box.y && x < box.x + box.width && y < box.y + box.height) return managed ? pid : null;
  }
  return null;
}

/** Keys sent while no window has the keyboard focus go nowhere: say so instead of losing them. */
async function requireKeyboardFocus(driver: Driver, what: string): Promise<void> {
  if (await driver.focusedWindow()) return;
  const open = (await driver.windows()).map((w) => `'${w.title || w.className}'`).join(', ');
  throw new HttpError(409, `No window has the keyboard focus, so ${what} would go nowhere. ${open ? `Click into a window first, or focus one (open: ${open}).` : 'No window is open: launch a program first.'}`);
}

/** The request's JSON body; an empty body is {}. */
async function readJson(req: http.IncomingMessage): Promise<Body> {
  const bytes = await readBody(req, MAX_BODY);
  if (!bytes) throw new HttpError(413, `the request body is larger than ${MAX_BODY} bytes`);
  if (!bytes.length) return {};
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new HttpError(400, 'request body is not JSON');
  }
}

/**
 * How long the agent keeps an idle client connection open. Node's default, 5 s,
 * is as long as a test step often waits between two calls ("wait for the
 * toast to disappear"): the client then reuses a connection the agent is
 * closing in the same instant, and the call fails with "socket hang up".
 */
const IDLE_CONNECTION_MS = 65_000;

export function createAgentServer(ctx: AgentContext): http.Server {
  const table = routes(ctx);
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://agent');
    const send = (status: number, value: unknown) => {
      const json = JSON.stringify(value);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
      res.end(json);
    };
    try {
      if (!sameSecret(bearerToken(req), ctx.token)) throw new HttpError(401, 'missing or wrong agent token');
      const handler = table[`${req.method} ${url.pathname}`];
      if (!handler) throw new HttpError(404, `no such agent route: ${req.method} ${url.pathname}`);
      // Held until answered, or until the client's connection goes (a client that died asks nothing more).
      ctx.lifetime?.requestStarted();
      res.once('close', () => ctx.lifetime?.requestEnded());
      const result = await handler(await readJson(req), url, res);
      if (!res.headersSent) send(200, result ?? {});
    } catch (error) {
      const { status: given, code } = error as { status?: unknown; code?: string };
      const status = typeof given === 'number' ? given : code === 'GLANCE_INVALID_OPTION' ? 400 : 500;
      if (!res.headersSent) send(status, { error: (error as Error).message });
    }
  });
  server.keepAliveTimeout = IDLE_CONNECTION_MS;
  server.headersTimeout = IDLE_CONNECTION_MS + 1_000;
  return server;
}
