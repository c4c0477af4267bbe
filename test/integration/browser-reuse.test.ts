import { after, test, TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { serveFolder } from '../../lib/util/static-server';
import { cleanupAfterFile, newClient, pageTitle, testState, waitForPageState } from '../helpers/glance';
import { testFolder } from '../helpers/test-root';

/**
 * A sandbox reused across scenarios keeps its Chromium: a reset closes every
 * window and context of it, and the next page opens in a fresh context of
 * the same process, with nothing kept from the pages before.
 */
const state = testState();
const cleanup = cleanupAfterFile(state, after);

/** Pages served from a folder of their own (made from the server's address), and a client connected to a new sandbox. */
async function pagesAndSandbox(t: TestContext, pages: (serverUrl: string) => Record<string, string>) {
  const dir = testFolder('pages-');
  const server = await serveFolder(dir);
  t.after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  for (const [name, html] of Object.entries(pages(server.url))) fs.writeFileSync(path.join(dir, name), html);
  const client = newClient(state, { dashcam: false });
  cleanup.push(client);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  return { client, url: server.url };
}

test("a reset closes the browser's windows and keeps its process, and the next page opens in a fresh context", async (t) => {
  // Counts its visits in localStorage, and says in its title whether the cookie of a visit before was there.
  const { client, url } = await pagesAndSandbox(t, () => ({ 'visits.html': `<!doctype html><meta charset="utf-8"><h1 id="v"></h1><script>
    const visits = Number(localStorage.getItem('visits') || 0) + 1;
    localStorage.setItem('visits', String(visits));
    const cookie = document.cookie.includes('seen=yes');
    document.cookie = 'seen=yes; max-age=3600';
    document.getElementById('v').textContent = 'Visits: ' + visits;
    document.title = JSON.stringify({ visits, cookie });
  </script>` }));
  const browserPids = async () => (await client.exec('sh', 'pgrep -f -- "[-]-keep-alive-for-test" || true')).trim().split('\n').filter(Boolean).map(Number);
  // The address bar's pop-ups are web pages of the browser's own, each in a renderer that a window would start, per context.
  const browserPages = async () => (await client.exec('sh', 'pgrep -f -- "[-]-top-chrome-webui" || true')).trim();
  // This sandbox's renderers: those of the browser profiles in its own folder (other sandboxes may run beside it).
  const renderers = async () => (await client.exec('sh', 'pgrep -f -- "[-]-type=renderer .*--user-data-dir=$(dirname \"$HOME\")/" || true')).trim().split('\n').filter(Boolean);

  await client.provision.chrome({ url: `${url}/visits.html` });
  assert.deepEqual(await waitForPageState(client, (s) => s.visits === 1), { visits: 1, cookie: false });
  const first = await browserPids();
  assert.ok(first.length > 0, 'the browser runs');

  await client.resetApps();
  assert.equal(await pageTitle(client), '', 'no browser window is left');
  const kept = await browserPids();
  assert.ok(first.every((pid) => kept.includes(pid)), `the browser's processes stay (${first} then ${kept})`);

  await client.provision.chrome({ url: `${url}/visits.html` });
  // A fresh context: the first visit again, without the cookie set before.
  assert.deepEqual(await waitForPageState(client, (s) => s.visits !== undefined), { visits: 1, cookie: false });
  const again = await browserPids();
  assert.ok(first.every((pid) => again.includes(pid)), 'the page opened in the same browser process');
  const heading = await client.find("'Visits: 1'");
  assert.ok(heading.found(), heading.reason ?? '');
  assert.equal(await browserPages(), '', 'no renderer of the browser\'s own pages runs beside the page (kiosk mode shows no address bar)');
  assert.equal((await renderers()).length, 1, 'the fresh context starts one renderer, its page\'s: no spare beside it');
  // It fills the screen and takes clicks and keys as the first window did.
  const size = client.getInstance()!.resolution.split('x').map(Number);
  assert.ok(heading.boundingBox!.y < size[1] / 2, 'the page starts at the top of the screen');
});

test('a frame of another site reports the input it handled, as the page does', async (t) => {
  // The frame comes from 'localhost', the page from '127.0.0.1': two sites, so the frame runs in a process of its own.
  const { client, url } = await pagesAndSandbox(t, (serverUrl) => ({
    'outer.html': `<!doctype html><meta charset="utf-8"><title>{}</title>
    <iframe src="http://localhost:${new URL(serverUrl).port}/inner.html" style="position:absolute;left:0;top:0;width:600px;height:200px;border:0"></iframe>
    <script>addEventListener('message', (e) => { document.title = JSON.stringify({ typed: e.data }); });</script>`,
    'inner.html': `<!doctype html><meta charset="utf-8">
    <input id="f" style="position:absolute;left:20px;top:20px;width:300px;height:40px;font-size:20px">
    <script>document.getElementById('f').addEventListener('input', (e) => parent.postMessage(e.target.value, '*'));</script>`,
  }));
  await client.provision.chrome({ url: `${url}/outer.html` });
  const agent = client.requireAgent();
  await agent.call('POST', '/pointer', { action: 'click', x: 150, y: 40 });
  const typed = await agent.call<{ pacing: { previousEchoed: boolean | null } }>('POST', '/type', { text: 'framed' });
  assert.equal(typed.pacing.previousEchoed, true, 'the frame reported the click');
  assert.deepEqual(await waitForPageState(client, (s) => s.typed === 'framed'), { typed: 'framed' });
});
