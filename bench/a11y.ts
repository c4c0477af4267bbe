import fs from 'fs';
import os from 'os';
import path from 'path';
import { Client } from '../lib/sdk';
import { LocalService } from '../lib/service/local-service';
import { serveFolder } from '../lib/util/static-server';
import { waitFor } from '../lib/util/wait';
import { clientOnPage, REPO_ROOT, testState } from '../test/helpers/glance';
import { Figure, figure, sample, withRatio } from './stats';

/**
 * The accessibility engine's speed: how long the agent takes to read the
 * visible tree (a large page, a GTK window), and a find through the tree
 * against the same find through OCR on a screen never read, in one run.
 */
const TARGETS = ["the 'Search' button", 'the Password field', "the 'Edit' button in the row of 'Alan Turing'", 'the Email field', "the 'Actions' button", 'Grace Hopper'];
const ROWS = 600;

/** A page of about 4,000 elements: a long table with a link and a button in every row. */
function largePage(dir: string): string {
  const rows = Array.from({ length: ROWS }, (_, i) => `<tr><td>Item ${i}</td><td>${(i * 37) % 1000}</td><td><a href="#">Open ${i}</a></td><td><button>Edit</button></td></tr>`).join('');
  fs.writeFileSync(path.join(dir, 'large.html'), `<!doctype html><title>Large</title><table>${rows}</table>`);
  return 'large.html';
}

export async function a11yBench(): Promise<Figure[]> {
  const state = testState();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-a11y-bench-'));
  fs.copyFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'a11y', 'workbench.html'), path.join(tmp, 'workbench.html'));
  const large = largePage(tmp);
  const server = await serveFolder(tmp);
  const clients: Client[] = [];
  try {
    const tree = await clientOnPage(state, `${server.url}/workbench.html`, { cache: false, logging: false });
    clients.push(tree);
    const ocr = await clientOnPage(state, `${server.url}/workbench.html`, { cache: false, logging: false, locator: 'ocr' });
    clients.push(ocr);
    const service = LocalService.embedded(state.stateDir);

    for (const target of TARGETS) {
      const found = await tree.find(target, { timeout: 0 });
      if (found.engine !== 'a11y') throw new Error(`'${target}' was answered by ${found.engine}, not the tree: ${found.reason}`);
    }
    const perTree: number[] = [];
    const perOcr: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const target of TARGETS) {
        let t = performance.now();
        await tree.find(target, { timeout: 0 });
        perTree.push(performance.now() - t);
        service.forgetReadings(); // OCR reads the screen afresh, as on a screen never seen
        t = performance.now();
        await ocr.find(target, { timeout: 0 });
        perOcr.push(performance.now() - t);
      }
    }
    const agent = tree.requireAgent();
    const workbench = figure('a11y snapshot, a small page (workbench)', await sample(15, () => agent.a11ySnapshot()));
    await tree.provision.chrome({ url: `${server.url}/${large}` });
    const nodes = (await agent.a11ySnapshot()).nodes.length;
    const largeFigure = figure(`a11y snapshot, a large page (${nodes} visible of ~${ROWS * 7} elements)`, await sample(15, () => agent.a11ySnapshot()));
    await tree.exec('sh', 'pkill -f "[c]hromium-"; true');
    await tree.provision.app({ command: 'gtk3-widget-factory' });
    await waitFor('the widget factory\'s tree', async () => (await agent.a11ySnapshot()).nodes.some((n) => n.app === 'gtk3-widget-factory'), { timeoutMs: 10_000 });
    const gtk = figure('a11y snapshot, a GTK window (widget factory)', await sample(15, () => agent.a11ySnapshot()));
    const ocrFigure = figure('find() through OCR, screen never read (same targets)', perOcr);
    return [
      workbench, largeFigure, gtk,
      withRatio(figure('find() through the tree (a11y), 1366x768', perTree, '<= 60'), ocrFigure),
      ocrFigure,
    ];
  } finally {
    for (const client of clients) await client.disconnect();
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
