import type { Screen } from '../types/screen';
import { sleep } from './wait';

const LOOK_INTERVAL_MS = 60;

/** Waits until the screen holds still (two identical looks in a row), at most `timeoutMs`. */
export async function waitForStillScreen(capture: () => Promise<Screen>, timeoutMs: number): Promise<Screen> {
  const deadline = Date.now() + timeoutMs;
  let previous = await capture();
  while (Date.now() < deadline) {
    await sleep(LOOK_INTERVAL_MS);
    const next = await capture();
    if (next.data.equals(previous.data)) return next;
    previous = next;
  }
  return previous;
}
