import fs from 'fs';
import path from 'path';
import { chromium } from 'playwright-core';
import { findChromium } from '../../lib/sandbox/agent/launcher';
import { serveFolder } from '../../lib/util/static-server';

/**
 * Renders fixture pages in Chromium at 1366x768 and records the boxes of the
 * elements the locate cases point at, straight from the DOM: the ground truth
 * the OCR engine is scored against.
 */
export interface RenderedPage {
  page: string;
  screen: string;
  boxes: Record<string, { x: number; y: number; width: number; height: number }>;
  /** Every element each selector matches (findAll's ground truth), in document order. */
  all: Record<string, { x: number; y: number; width: number; height: number }[]>;
}

export async function renderPages(fixtures: string, pages: { page: string; selectors: string[] }[], outDir: string): Promise<RenderedPage[]> {
  fs.mkdirSync(outDir, { recursive: true });
  const server = await serveFolder(fixtures);
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--disable-gpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'] });
  try {
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 });
    const tab = await context.newPage();
    const rendered: RenderedPage[] = [];
    for (const { page, selectors } of pages) {
      await tab.goto(`${server.url}/${page}`, { waitUntil: 'load' });
      const screen = path.join(outDir, `${page.replace(/\W+/g, '_')}.png`);
      await tab.screenshot({ path: screen });
      const boxes: RenderedPage['boxes'] = {};
      const all: RenderedPage['all'] = {};
      for (const selector of selectors) {
        const found = (await Promise.all((await tab.locator(selector).all()).map((l) => l.boundingBox()))).filter((b) => b !== null);
        if (!found.length) throw new Error(`${page}: selector ${selector} matches nothing visible`);
        all[selector] = found.map((box) => ({ x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) }));
        boxes[selector] = all[selector][0];
      }
      rendered.push({ page, screen, boxes, all });
    }
    return rendered;
  } finally {
    await browser.close();
    await server.close();
  }
}
