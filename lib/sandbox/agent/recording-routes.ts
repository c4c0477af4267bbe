import type http from 'http';
import type { InputRecording } from './input-recording';

type Body = Record<string, any>;
type Handler = (body: Body, url: URL, res: http.ServerResponse) => Promise<unknown>;

/** The longest a reader waits for the next recorded input. */
const MAX_WAIT_MS = 10_000;

/**
 * The agent's recording routes: start recording what a person does on the
 * display, read it as it comes (long-polled), stop. One recording at a time;
 * starting again replaces it. A stop answers with the inputs after the
 * `after` its body gives, up to the last one the display handled before the
 * stop: the reader's last read, exact, with no quiet to wait for.
 */
export function recordingRoutes(start: () => Promise<InputRecording>): { routes: Record<string, Handler>; stop(): Promise<void> } {
  let current: InputRecording | null = null;
  /** The recording under way, no longer current: the caller stops it. */
  const detach = () => {
    const ending = current;
    current = null;
    return ending;
  };
  const stop = async () => { await detach()?.stop(); };
  const routes: Record<string, Handler> = {
    'POST /record/start': async () => {
      await stop();
      current = await start();
      return { recording: true };
    },
    'GET /record/events': async (_body, url) => {
      const after = Number(url.searchParams.get('after') ?? 0);
      const timeoutMs = Number(url.searchParams.get('timeoutMs') ?? 0);
      if (!Number.isInteger(after) || after < 0 || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_WAIT_MS) {
        throw Object.assign(new Error(`'after' must be a whole number from 0 and 'timeoutMs' 0 to ${MAX_WAIT_MS}, got ${JSON.stringify(url.search)}`), { status: 400 });
      }
      if (!current) throw Object.assign(new Error('nothing is being recorded: POST /record/start first'), { status: 409 });
      return { events: await current.after(after, timeoutMs) };
    },
    'POST /record/stop': async (body) => {
      const after = body.after ?? 0;
      if (!Number.isInteger(after) || after < 0) throw Object.assign(new Error(`'after' must be a whole number from 0, got ${JSON.stringify(after)}`), { status: 400 });
      const ending = detach();
      if (!ending) return { stopped: false, events: [] };
      await ending.stop();
      return { stopped: true, events: await ending.after(after, 0) };
    },
  };
  return { routes, stop };
}
