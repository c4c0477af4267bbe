import crypto from 'crypto';
import fs from 'fs';
import path from 'path';
import { chromium, Page } from 'playwright-core';
import { findChromium } from '../../../lib/sandbox/agent/launcher';
import { serveFolder } from '../../../lib/util/static-server';
import { snapshotInPage } from './dom-snapshot';
import { sourceSlug, WebPage, WebSource } from './source-list';
import type { ScreenSnapshot } from './types';

// Used inside page callbacks only; Glance compiles without the DOM library.
declare const document: any, window: any;

/**
 * Captures a web source's pages in Chromium at each resolution: a PNG of the
 * viewport and the DOM snapshot of what it shows. The package is served from
 * 127.0.0.1 and every request to another host is refused, so a page looks the
 * same on every run; it gets what its own package ships and nothing else.
 */
export interface CapturedScreen {
  id: string;
  source: string;
  page: string;
  width: number;
  height: number;
  png: string;
  pageSha: string;
  snapshot: ScreenSnapshot;
}

/**
 * Pages are captured still: no animations, transitions or blinking caret.
 * Ligature icon fonts come from a CDN the page cannot reach, and without the
 * font their ligature names ('dashboard', 'more_vert') would show as words
 * where a user sees an icon, so they are hidden.
 */
const STILL_CSS = `*, *::before, *::after { animation: none !important; transition: none !important; caret-color: transparent !important; }
.material-icons, .material-icons-round, .material-icons-outlined, .material-icons-sharp, .material-symbols-rounded, .material-symbols-outlined { visibility: hidden !important; }`;

export function screenId(source: string, page: WebPage, width: number, height: number): string {
  const name = page.path.replace(/\.html?$/, '').replace(/[^\w.-]+/g, '-');
  return `${sourceSlug(source)}--${name}${page.label ? `-${page.label}` : ''}@${width}x${height}`;
}

async function settle(tab: Page, page: WebPage, assets: WebSource['assets'], base: string): Promise<void> {
  for (const file of assets?.stylesheets ?? []) await tab.addStyleTag({ url: `${base}/${file}` });
  for (const file of assets?.scripts ?? []) await tab.addScriptTag({ url: `${base}/${file}` });
  await tab.addStyleTag({ content: STILL_CSS });
  await tab.evaluate(() => document.fonts.ready.then(() => undefined));
  await tab.waitForTimeout(1200);
  if (page.click) {
    await tab.evaluate((selector) => document.querySelector(selector)?.click(), page.click);
    await tab.waitForTimeout(400);
  }
  if (page.scroll) {
    await tab.evaluate((y) => window.scrollTo(0, y), page.scroll);
    await tab.waitForTimeout(400);
  }
  // Hover and focus effects stay out of the picture.
  await tab.mouse.move(0, 0);
  await tab.evaluate(() => document.activeElement?.blur());
}

export async function captureWebSource(source: WebSource, root: string, resolutions: [number, number][], outDir: string): Promise<CapturedScreen[]> {
  fs.mkdirSync(outDir, { recursive: true });
  const server = await serveFolder(root);
  const browser = await chromium.launch({
    executablePath: findChromium(),
    args: ['--disable-gpu', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', '--hide-scrollbars', '--font-render-hinting=none'],
  });
  const screens: CapturedScreen[] = [];
  try {
    for (const [width, height] of resolutions) {
      const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1, reducedMotion: 'reduce', serviceWorkers: 'block' });
      await context.route('**/*', (route) => {
        const url = route.request().url();
        return url.startsWith(server.url) || url.startsWith('data:') ? route.continue() : route.abort();
      });
      const tab = await context.newPage();
      for (const page of source.pages) {
        const file = path.join(root, page.path);
        if (!fs.existsSync(file)) throw new Error(`${source.name}@${source.version} has no ${page.path}: fix its pages in bench/locate/real/sources.json`);
        await tab.goto(`${server.url}/${page.path}`, { waitUntil: 'load', timeout: 30_000 });
        await settle(tab, page, source.assets, server.url);
        const id = screenId(source.name, page, width, height);
        const png = path.join(outDir, `${id}.png`);
        await tab.screenshot({ path: png });
        const snapshot = await tab.evaluate(snapshotInPage);
        const pageSha = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
        screens.push({ id, source: source.name, page: page.path + (page.label ? ` (${page.label})` : ''), width, height, png, pageSha, snapshot });
      }
      await context.close();
    }
    return screens;
  } finally {
    await browser.close();
    await server.close();
  }
}
