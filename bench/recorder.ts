import fs from 'fs';
import os from 'os';
import path from 'path';
import { execFileSync } from 'child_process';
import type { Client, RecordedStep } from '../lib/sdk';
import { serveFolder } from '../lib/util/static-server';
import { newClient, REPO_ROOT, testState } from '../test/helpers/glance';
import { Figure, figure } from './stats';

/**
 * The recorder's latency: from a person's click, sent to the sandbox's
 * display by xdotool from outside Glance, to its step (`recorder:step`).
 * With the tree: buttons of a page in Chromium. With OCR only: the buttons
 * of a Tk program, which publishes no tree.
 */
const CLICKS = 9;
const BUTTONS = ['Save draft', 'Preview', 'Publish', 'Archive', 'Duplicate', 'Share', 'Export', 'Print', 'Delete'];

async function clickLatencies(client: Client, targets: string[]): Promise<number[]> {
  const at: number[][] = [];
  for (const target of targets) {
    const element = await client.find(target);
    if (!element.found()) throw new Error(`the bench's target ${target} is not on the screen`);
    at.push([Math.round(element.centerX!), Math.round(element.centerY!)]);
  }
  const recorder = await client.record();
  const made: number[] = [];
  client.getEmitter().on('recorder:step', (_step: RecordedStep) => made.push(Date.now()));
  const display = client.getInstance()!.display!;
  const latencies: number[] = [];
  try {
    for (let i = 0; i < CLICKS; i++) {
      await recorder.idle();
      const [x, y] = at[i % at.length];
      const before = made.length;
      const sent = Date.now();
      execFileSync('xdotool', ['mousemove', String(x), String(y), 'click', '1'], { env: { ...process.env, DISPLAY: display } });
      while (made.length === before) await new Promise((resolve) => setTimeout(resolve, 2));
      latencies.push(made[before] - sent);
    }
  } finally {
    await recorder.stop();
  }
  return latencies;
}

export async function recorderBench(): Promise<Figure[]> {
  const state = testState();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'recorder-bench-'));
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'buttons.html'), `<!doctype html><meta charset="utf-8"><title>Buttons</title><style>body{font:18px sans-serif;margin:40px} button{display:block;margin:10px;font-size:18px;padding:6px 16px}</style>
    ${BUTTONS.map((b) => `<button onclick="document.title='${b}'">${b}</button>`).join('')}`);
  const server = await serveFolder(dir);
  const figures: Figure[] = [];
  try {
    const web = newClient(state, { dashcam: false });
    await web.auth();
    await web.connect({ keepAlive: 0 });
    try {
      await web.provision.chrome({ url: `${server.url}/buttons.html` });
      figures.push(figure('click to its step, with the tree (Chromium)', await clickLatencies(web, BUTTONS.map((b) => `the '${b}' button`)), '<= 500'));
    } finally {
      await web.disconnect();
    }
    const tk = newClient(state, { dashcam: false, environment: { PATH: `${path.join(REPO_ROOT, 'features', 'fixtures', 'bin')}:${process.env.PATH}` } });
    await tk.auth();
    await tk.connect({ keepAlive: 0 });
    try {
      await tk.provision.app({ command: 'stockroom' });
      figures.push(figure('click to its step, OCR only (Tk)', await clickLatencies(tk, ["'Save'", "'Add item'"]), '<= 1500'));
    } finally {
      await tk.disconnect();
    }
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}
