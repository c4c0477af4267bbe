// Writes entries into a shared state folder, for the concurrent-writers test:
// argv: stateDir, writer id, entry count.
import { ElementCache } from '../../lib/cache/element-cache';
import { syntheticScreen } from './screens';

(async () => {
  const [stateDir, writer, count] = process.argv.slice(2);
  const cache = new ElementCache(stateDir);
  for (let i = 0; i < Number(count); i++) {
    const screen = syntheticScreen({ buttonX: 40 + (i % 10), seed: Number(writer) * 1000 + i });
    cache.record({ key: `writer-${writer}`, description: `button ${i}`, os: 'linux', resolution: '320x200' }, screen,
      [{ box: { x: 40, y: 60, width: 90, height: 30 }, text: 'Save', confidence: 1, engine: 'ocr', reason: 'test' }]);
    if (i % 5 === 4) await cache.commit(); // several transactions per writer, interleaving with the others
  }
  await cache.commit();
})();
