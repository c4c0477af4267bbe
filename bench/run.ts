import fs from 'fs';
import os from 'os';
import path from 'path';
import { foundationBench } from './foundation';
import { locateBench } from './locate/accuracy';
import { locateRealBench } from './locate/real/bench';
import { cacheBench } from './cache';
import { cucumberBench } from './cucumber';
import { visionBench } from './vision';
import { a11yBench } from './a11y';
import { a11yAccuracyBench } from './a11y-accuracy';
import { evidenceBench } from './evidence';
import { liveGroundingBench } from './live-grounding';
import { warmBench } from './warm';
import { appearBench } from './appear';
import { stepsBench } from './steps';
import { parallelBench } from './parallel';
import { serverBench } from './server';
import { scaleBench } from './scale';
import { recorderBench } from './recorder';
import { printTable, writeResults } from './stats';

/** `npm run bench`: every suite prints a table and writes bench/results/<suite>.json (`npm run bench -- locate-real --part=tune`: one suite, with its flags). */
const suites: Record<string, () => ReturnType<typeof foundationBench>> = {
  foundation: foundationBench,
  locate: locateBench,
  'locate-real': locateRealBench,
  cache: cacheBench,
  cucumber: cucumberBench,
  vision: visionBench,
  a11y: a11yBench,
  'a11y-accuracy': a11yAccuracyBench,
  evidence: evidenceBench,
  'live-grounding': liveGroundingBench,
  warm: warmBench,
  appear: appearBench,
  steps: stepsBench,
  parallel: parallelBench,
  server: serverBench,
  scale: scaleBench,
  recorder: recorderBench,
};

async function main(): Promise<void> {
  // Arguments naming suites pick them; --flags belong to the suites.
  const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  for (const [name, run] of Object.entries(suites)) {
    if (only.length && !only.includes(name)) continue;
    const figures = await run();
    printTable(`${name}`, figures);
    console.log(`written: ${writeResults(name, figures)}`);
  }
}

// The suites' state folders (testState) go under one folder of the run's, removed when it ends.
const ownRoot = process.env.GLANCE_TEST_ROOT ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'glance-bench-'));
if (ownRoot) process.env.GLANCE_TEST_ROOT = ownRoot;
const removeRoot = () => { if (ownRoot) fs.rmSync(ownRoot, { recursive: true, force: true }); };

main().then(removeRoot, (error) => {
  console.error(error);
  removeRoot();
  process.exit(1);
});
