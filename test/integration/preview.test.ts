import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import net from 'net';
import path from 'path';
import { chromium } from 'playwright-core';
import { Client } from '../../lib/sdk';
import { findChromium } from '../../lib/sandbox/agent/launcher';
import { waitFor } from '../../lib/util/wait';
import { newClient, testState } from '../helpers/glance';

// Page code runs in the browser; the tests compile without the DOM's types.
declare const document: any;
declare const WebSocket: any;

// The live preview: x11vnc, the WebSocket bridge, noVNC in a real browser, and
// how each preview mode behaves where a browser can or cannot be opened.
const state = testState();
const cleanup: Client[] = [];

after(async () => {
  for (const client of cleanup) await client.disconnect();
});

async function connected(options: Parameters<typeof newClient>[1]): Promise<{ client: Client; lines: string[] }> {
  const client = newClient(state, { dashcam: false, ...options });
  cleanup.push(client);
  const lines: string[] = [];
  client.getEmitter().on('log:info', (line: string) => lines.push(line));
  await client.auth();
  await client.connect({ keepAlive: 0 });
  return { client, lines };
}

/** Runs `body` with some environment variables set (or removed, with undefined), then puts them back. */
async function withEnv<T>(vars: Record<string, string | undefined>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  try {
    return await body();
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  }
}

// Four colours and a line of text: a screen no blank or stale canvas could pass for.
const QUADRANTS = 'data:text/html,' + encodeURIComponent(`<body style="margin:0">
  <div style="position:fixed;left:0;top:0;width:50%;height:50%;background:#d03030"></div>
  <div style="position:fixed;right:0;top:0;width:50%;height:50%;background:#30a040"></div>
  <div style="position:fixed;left:0;bottom:0;width:50%;height:50%;background:#3050d0"></div>
  <div style="position:fixed;right:0;bottom:0;width:50%;height:50%;background:#f0d020"></div>
  <h1 style="position:fixed;left:40px;top:40px;color:white;font:bold 48px sans-serif">Preview check</h1></body>`);

test("preview 'ide': the URL goes to .glance/preview-url and the log, and the page shows the sandbox's screen in its canvas, pixel for pixel", async () => {
  const { client, lines } = await connected({ preview: 'ide' });
  const url = client.getPreviewUrl()!;
  const file = path.join(state.stateDir, 'preview-url');
  assert.equal(fs.readFileSync(file, 'utf8').trim(), url);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.ok(lines.some((l) => l.includes(url)), 'the URL is printed');
  const token = client.requireAgent().endpoint.token;
  assert.ok(!url.includes(token), 'the URL carries a view key, not the sandbox token');

  // vncPort is x11vnc itself, on localhost.
  const banner = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(client.getInstance()!.vncPort!, '127.0.0.1');
    socket.once('data', (d) => { resolve(d.toString()); socket.destroy(); });
    socket.once('error', reject);
  });
  assert.match(banner, /^RFB 003\.00\d/);

  await client.provision.chrome({ url: QUADRANTS });
  const browser = await chromium.launch({ executablePath: findChromium(), args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1800, height: 900 } });
    await page.goto(`${url}&fit=0`);
    await page.waitForSelector('body[data-state="connected"]', { timeout: 15_000 });
    const screen = await client.captureScreen();
    // The sandbox's pixels at a 24x12 grid, compared with the canvas noVNC drew.
    const points: { x: number; y: number; rgb: number[] }[] = [];
    for (let gy = 0; gy < 12; gy++) {
      for (let gx = 0; gx < 24; gx++) {
        const x = Math.round((gx + 0.5) * (screen.width / 24));
        const y = Math.round((gy + 0.5) * (screen.height / 12));
        const i = (y * screen.width + x) * 4;
        points.push({ x, y, rgb: [screen.data[i + 2], screen.data[i + 1], screen.data[i]] });
      }
    }
    let matching = 0;
    await waitFor('the canvas to show the sandbox screen', async () => {
      const drawn = await page.evaluate((pts) => {
        const canvas = document.querySelector('canvas');
        if (!canvas || canvas.width < 100) return null;
        const context = canvas.getContext('2d')!;
        return { size: [canvas.width, canvas.height], pixels: pts.map((p) => Array.from(context.getImageData(p.x, p.y, 1, 1).data.slice(0, 3)) as number[]) };
      }, points);
      if (!drawn) return false;
      assert.deepEqual(drawn.size, [screen.width, screen.height]);
      matching = drawn.pixels.filter((rgb, i) => rgb.every((v, c) => Math.abs(v - points[i].rgb[c]) <= 12)).length;
      return matching >= points.length * 0.98;
    }, { timeoutMs: 15_000, intervalMs: 250 }).catch(() => undefined);
    assert.ok(matching >= points.length * 0.98, `${matching} of ${points.length} sampled pixels match the sandbox screen`);

    // The command log arrives as it happens.
    await client.click(683, 600);
    await page.waitForFunction(() => /click '683x600' ok/.test(document.getElementById('log')!.textContent ?? ''), undefined, { timeout: 10_000 });

    // Without the key there is nothing to see.
    const bare = await browser.newPage();
    await bare.goto(url.replace(/#.*$/, ''));
    await bare.waitForFunction(() => /needs its key/.test(document.getElementById('status')!.textContent ?? ''));
    const refused = await bare.evaluate((address) => new Promise((resolve) => {
      const ws = new WebSocket(address);
      ws.onopen = () => resolve('opened');
      ws.onerror = () => resolve('refused');
    }), url.replace(/^http/, 'ws').replace(/\/#key=.*$/, '/vnc?key=wrong'));
    assert.equal(refused, 'refused');
    assert.equal((await bare.goto(url.replace(/\/#key=.*$/, '/log?key=wrong')))!.status(), 401);
  } finally {
    await browser.close();
  }
  await client.disconnect();
});

test("preview 'browser' in CI or without a display goes on without a preview, in one line, at once", async () => {
  for (const env of [{ CI: 'true', DISPLAY: ':0' }, { CI: undefined, DISPLAY: undefined, WAYLAND_DISPLAY: undefined }]) {
    await withEnv(env, async () => {
      const started = Date.now();
      const { client, lines } = await connected({ preview: 'browser' });
      const notices = lines.filter((l) => /preview/i.test(l));
      assert.equal(notices.length, 1, notices.join('\n'));
      assert.match(notices[0], env.CI ? /not opened: this is a CI run/ : /not opened: there is no display/);
      assert.ok(Date.now() - started < 10_000);
      assert.equal(client.getInstance()!.vncPort, null, 'and runs no VNC server that nobody watches');
      await client.disconnect();
    });
  }
});

test("preview 'browser' opens the page with the desktop's opener, and never waits for it", async () => {
  const bin = path.join(state.stateDir, 'bin');
  const opened = path.join(state.stateDir, 'opened.txt');
  fs.mkdirSync(bin, { recursive: true });
  // A browser that never finishes opening: connect() must not wait for it. It writes the URL and its pid whole
  // (a rename), so the test never reads a file the shell has created but not yet filled, then stays.
  fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\necho "$$ $1" > ${opened}.part && mv ${opened}.part ${opened}\nexec sleep 600\n`, { mode: 0o755 });
  await withEnv({ CI: undefined, DISPLAY: ':99', PATH: `${bin}:${process.env.PATH}` }, async () => {
    const { client, lines } = await connected({ preview: 'browser' });
    assert.ok(lines.some((l) => l.startsWith('Live preview opened in your browser: http://127.0.0.1:')));
    await waitFor('the opener to be called', () => fs.existsSync(opened), { timeoutMs: 5000 });
    const [pid, url] = fs.readFileSync(opened, 'utf8').trim().split(' ');
    try {
      assert.equal(url, client.getPreviewUrl());
      assert.doesNotThrow(() => process.kill(Number(pid), 0), 'connect() returned while the opener still runs');
    } finally {
      process.kill(Number(pid), 'SIGKILL');
    }
    await client.disconnect();
  });
});

test("preview 'none' starts no VNC server", async () => {
  const { client, lines } = await connected({ preview: 'none' });
  assert.equal(client.getInstance()!.vncPort, null);
  assert.equal(client.getPreviewUrl(), null);
  assert.deepEqual(lines.filter((l) => /preview/i.test(l)), []);
  await client.disconnect();
});
