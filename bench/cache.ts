import { Client } from '../lib/sdk';
import { serveFolder } from '../lib/util/static-server';
import { LocalService } from '../lib/service/local-service';
import { FIXTURES, newClient, testState } from '../test/helpers/glance';
import { Figure, figure, withRatio } from './stats';

/** The element cache at 1366x768: a hit against the same find uncached, and a hit that needs a whole-screen search. */
export async function cacheBench(): Promise<Figure[]> {
  const state = testState();
  const server = await serveFolder(FIXTURES);
  const open = async (client: Client, query: string) => {
    await client.exec('sh', "pkill -f '[c]hromium-'; true");
    await client.provision.chrome({ url: `${server.url}/app/cache-lab.html${query}` });
  };
  const client: Client = newClient(state, { cacheKey: 'bench' });
  try {
    await client.auth();
    await client.connect({ keepAlive: 0 });
    await open(client, '');
    const timed = async (run: () => Promise<unknown>) => {
      const t = performance.now();
      await run();
      return performance.now() - t;
    };
    const miss: number[] = [];
    const hit: number[] = [];
    await client.find('Publish button', -1);
    for (let i = 0; i < 15; i++) {
      LocalService.embedded(state.stateDir).forgetReadings(); // an uncached find reads the screen afresh
      miss.push(await timed(() => client.find('Publish button', -1)));
    }
    await client.find('Publish button');
    await client.commitCache();
    await client.find('Publish button'); // first hit decodes the stored screen
    for (let i = 0; i < 30; i++) hit.push(await timed(() => client.find('Publish button')));

    // The element moved well away from its cached place: the near search fails and the whole screen is searched.
    await open(client, '?shift=420');
    const moved: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t = performance.now();
      const element = await client.find('Publish button');
      moved.push(performance.now() - t);
      if (!element.cache.hit || element.cache.strategy !== 'template-match') throw new Error(`expected a template-match hit, got ${JSON.stringify(element.cache)}`);
    }
    const missFigure = figure('find(), uncached (cache off), same screen', miss);
    return [
      withRatio(figure('find(), cache hit, screenshot included', hit, '<= 30'), missFigure),
      missFigure,
      withRatio(figure('find(), cache hit by whole-screen template search', moved, '<= 150'), missFigure),
    ];
  } finally {
    client.discardCache();
    await client.disconnect();
    await server.close();
  }
}
