import fs from 'fs';
import path from 'path';
import { FAMILIES, resolveVisionModel } from '../lib/config/vision';
import { loadScreen, OfflineLocator } from '../lib/service/offline';
import type { ModelCall } from '../lib/types/locate';
import { clientOnPage, fixtureServer, testState } from '../test/helpers/glance';
import { groundTruth, inside, STUDIO } from '../test/support/ground-truth';
import { VisionServer, VisionServerOptions } from '../test/support/vision-server';
import { Figure, figure } from './stats';

/**
 * The vision engine through the test model server, which answers from the
 * fixture's DOM boxes in each family's convention and with its quirks (its
 * own resize, 0-1000 grids, y before x, a point for a box): the share of
 * clicks that land inside the target per family, the time Glance adds to a
 * vision find beyond the model's own latency, and the model calls a warm
 * rerun makes (the element cache should leave none).
 */
const PLAYS: (VisionServerOptions & { label: string })[] = [
  ...FAMILIES.map((family) => ({ family, label: family })),
  { family: 'pixels', pointForBox: true, label: 'pixels, point for a box' },
  { family: 'norm-1000', pointForBox: true, label: 'norm-1000, point for a box' },
];
const ONE = Object.keys(STUDIO).filter((d) => d !== 'trash icons');
const RERUN_FINDS = ['the gear icon', 'the red banner', 'the blue square', 'the picture of a mountain'];

export async function visionBench(): Promise<Figure[]> {
  const truth = await groundTruth('app/studio.html', STUDIO);
  const screen = await loadScreen(truth.screenshot);
  const server = new VisionServer({ family: 'pixels' });
  await server.start();
  const figures: Figure[] = [];
  const summary: Record<string, unknown> = {};
  try {
    await server.show({ screen, targets: truth.targets });
    const overheads: number[] = [];
    const accuracy: { family: string; inside: number; cases: number; misses: string[] }[] = [];
    for (const play of PLAYS) {
      server.play({ ...play, model: `bench-${play.family}` });
      const locator = new OfflineLocator('vision', resolveVisionModel(server.env()));
      const row = { family: play.label, inside: 0, cases: 0, misses: [] as string[] };
      for (const description of ONE) {
        for (const zoom of [false, true]) {
          const calls: ModelCall[] = [];
          const started = performance.now();
          const outcome = await locator.locate(screen, description, { zoom }, (call) => calls.push(call));
          const took = performance.now() - started;
          if (!zoom) overheads.push(took - calls.reduce((sum, c) => sum + c.latencyMs, 0));
          const box = outcome.candidate?.box;
          const point = box ? { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) } : null;
          const ok = !!point && truth.targets[description].some((t) => inside(point, t));
          row.cases++;
          if (ok) row.inside++;
          else row.misses.push(`${description}${zoom ? ' (zoom)' : ''} → ${point ? `${point.x},${point.y}` : outcome.rejection}`);
        }
      }
      const all = (await locator.all(screen, 'trash icons')).map((c) => ({ x: c.box.x + c.box.width / 2, y: c.box.y + c.box.height / 2 }));
      row.cases++;
      if (all.length === 3 && all.every((p, i) => inside(p, truth.targets['trash icons'][i]))) row.inside++;
      else row.misses.push(`findAll trash icons → ${all.length} boxes`);
      accuracy.push(row);
      await locator.stop();
    }
    console.log('\nvision: clicks inside the target, per family (target 100%)');
    for (const row of accuracy) {
      console.log(`  ${row.family.padEnd(28)} ${(Math.round((row.inside / row.cases) * 1000) / 10).toFixed(1).padStart(5)}%  of ${row.cases}`);
      for (const miss of row.misses) console.log(`    miss: ${miss}`);
    }
    figures.push(figure('vision find: time Glance adds beyond the model', overheads, '<= 30'));
    summary.accuracy = accuracy;

    const rerun = await warmRerun(server);
    console.log(`vision: model calls, cold run ${rerun.cold} for ${RERUN_FINDS.length} finds; warm rerun ${rerun.warm} (target 0)`);
    summary.calls = rerun;
  } finally {
    await server.close();
  }
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, 'results', 'vision-accuracy.json'), JSON.stringify(summary, null, 2));
  return figures;
}

/** The same finds twice in a sandbox, the second time on the cache the first one committed: model calls counted by `ai:usage`. */
async function warmRerun(server: VisionServer): Promise<{ cold: number; warm: number }> {
  const pages = await fixtureServer();
  const state = testState();
  server.play({ family: 'qwen2.5-vl', model: 'bench-rerun' });
  const saved = { ...process.env };
  Object.assign(process.env, server.env());
  const run = async (): Promise<number> => {
    let calls = 0;
    const client = await clientOnPage(state, `${pages.url}/app/studio.html`, { cacheKey: 'bench-vision' });
    client.getEmitter().on('ai:usage', () => { calls++; });
    try {
      await server.show({ screen: await client.captureScreen(), targets: (await groundTruth('app/studio.html', STUDIO)).targets });
      for (const description of RERUN_FINDS) {
        if (!(await client.find(description)).found()) throw new Error(`the warm-rerun bench did not find '${description}'`);
      }
    } finally {
      await client.disconnect(); // commits the cache: the run passed
    }
    return calls;
  };
  try {
    return { cold: await run(), warm: await run() };
  } finally {
    process.env = saved;
    await pages.close();
  }
}
