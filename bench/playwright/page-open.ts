import { chromium } from 'playwright-core';
import { findChromium } from '../../lib/sandbox/agent/launcher';

/**
 * What opening a page costs a Playwright user with the same Chromium,
 * headless (Playwright's default), in the same run as Glance's figures:
 * the baselines for `provision.chrome`. Cold: the browser's launch and its
 * first page. Warm: a new context and page of a running browser, as
 * Playwright gives each test.
 */
export async function playwrightPageOpen(url: string, runs: number): Promise<{ cold: number[]; warm: number[] }> {
  const cold: number[] = [];
  const warm: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
      await page.goto(url);
      cold.push(performance.now() - t);
      const w = performance.now();
      const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
      await (await context.newPage()).goto(url);
      warm.push(performance.now() - w);
    } finally {
      await browser.close();
    }
  }
  return { cold, warm };
}
