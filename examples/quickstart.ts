/**
 * `npm run example`: a sandbox, Chromium on a fixture page, and a few actions,
 * narrated as they happen.
 */
import path from 'path';
import { Client } from '../lib/sdk';
import { serveFolder } from '../lib/util/static-server';

async function main(): Promise<void> {
  const server = await serveFolder(path.join(__dirname, '..', 'features', 'fixtures'));
  const client = new Client({ preview: 'none' });
  client.getEmitter().on('command:success', (e) => console.log(`  ✓ ${e.command} ${JSON.stringify(e.args)} (${Math.round(e.durationMs)} ms)`));
  try {
    await client.auth();
    await client.connect({ keepAlive: 0 });
    await client.provision.chrome({ url: `${server.url}/input-lab.html` });
    await client.click(160, 80);
    await client.click(300, 178);
    await client.type('Hello from Glance!');
    await client.pressKeys(['ctrl+a']);
    console.log(`  screenshot: ${await client.screenshot()}`);
  } catch (error) {
    client.markFailed(String(error));
    throw error;
  } finally {
    await client.disconnect();
    await server.close();
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exitCode = 1;
});
