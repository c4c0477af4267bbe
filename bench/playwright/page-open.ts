import { chromium } from 'playwright-core';
import { findChromium } from '../../lib/sandbox/agent/launcher';

const VIEWPORT = { width: 1366, height: 768 };

/**
 * What opening a page costs a Playwright user with the same Chromium,
 * headless (Playwright's default), in the same run as Glance's figures:
 * the baselines for `provision.chrome`. Cold: the browser's launch and its
 * first page. Warm: a new context and page of a browser that has run a
 * while, as Playwright gives each test after the first: each context is
 * closed after its page, as Glance's reset closes the page before, and the
 * first of them is not timed (the browser may still be starting up then).
 */
export async function playwrightPageOpen(url: string, runs: number): Promise<{ cold: number[]; warm: number[] }> {
  const args = ['--no-sandbox', '--disable-gpu'];
  const cold: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const browser = await chromium.launch({ executablePath: findChromium(), args });
    try {
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.goto(url);
      cold.push(performance.now() - t);
    } finally {
      await browser.close();
    }
  }
  const warm: number[] = [];
  const browser = await chromium.launch({ executablePath: findChromium(), args });
  try {
    for (let i = 0; i <= runs; i++) {
      const t = performance.now();
      const context = await browser.newContext({ viewport: VIEWPORT });
      await (await context.newPage()).goto(url);
      const took = performance.now() - t;
      await context.close();
      if (i > 0) warm.push(took);
    }
  } finally {
    await browser.close();
  }
  return { cold, warm };
}
