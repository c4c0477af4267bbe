import { foundationBench } from './foundation';
import { locateBench } from './locate/accuracy';
import { cacheBench } from './cache';
import { cucumberBench } from './cucumber';
import { visionBench } from './vision';
import { a11yBench } from './a11y';
import { printTable, writeResults } from './stats';

/** `npm run bench`: every suite prints a table and writes bench/results/<suite>.json. */
const suites: Record<string, () => ReturnType<typeof foundationBench>> = {
  foundation: foundationBench,
  locate: locateBench,
  cache: cacheBench,
  cucumber: cucumberBench,
  vision: visionBench,
  a11y: a11yBench,
};

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  for (const [name, run] of Object.entries(suites)) {
    if (only.length && !only.includes(name)) continue;
    const figures = await run();
    printTable(`${name}`, figures);
    console.log(`written: ${writeResults(name, figures)}`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
