import fs from 'fs';
import path from 'path';
import { InvalidOptionError } from '../config/errors';
import { defaultStateDir } from '../config/state-dir';
import { runId } from '../client/analytics';
import { RemoteService } from '../service/remote-service';
import { JsonFeature, scenariosOfReport } from '../report/publish';
import { knownFlags, parseFlags } from './flags';
import { writeHtmlReport } from '../report/html-report';

/**
 * `glance report [--json DIR] [--out DIR]`: Cucumber JSON to an HTML report
 * (defaults: reports/json, reports). With `--publish`, the same JSON goes to
 * the team server (GLANCE_API_ROOT or --api-root, with GLANCE_API_KEY) as one
 * run (GLANCE_RUN_ID or --run), evidence files and all.
 */
export async function reportCommand(args: string[]): Promise<number> {
  const { flags } = parseFlags(args, ['publish']);
  knownFlags('report', flags, ['json', 'out', 'publish', 'api-root', 'run']);
  const jsonDir = path.resolve(typeof flags.json === 'string' ? flags.json : path.join('reports', 'json'));
  if (flags.publish) return publish(jsonDir, flags);
  const reportPath = path.resolve(typeof flags.out === 'string' ? flags.out : 'reports');
  console.log(`report: ${await writeHtmlReport({ jsonDir, reportPath })}`);
  return 0;
}

async function publish(jsonDir: string, flags: Record<string, string | true>): Promise<number> {
  const apiRoot = typeof flags['api-root'] === 'string' ? flags['api-root'] : process.env.GLANCE_API_ROOT;
  if (!apiRoot) throw new InvalidOptionError('api-root', 'glance report --publish needs the team server: --api-root URL or GLANCE_API_ROOT.');
  const key = process.env.GLANCE_API_KEY;
  if (!key) throw new InvalidOptionError('GLANCE_API_KEY', 'glance report --publish needs your team\'s key in GLANCE_API_KEY.');
  if (!fs.existsSync(jsonDir)) throw new InvalidOptionError('json', `No Cucumber JSON folder at ${jsonDir}; give it with --json DIR.`);
  const files = fs.readdirSync(jsonDir).filter((f) => f.endsWith('.json'));
  const features = files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(jsonDir, f), 'utf8')) as JsonFeature[]);
  const run = typeof flags.run === 'string' ? flags.run : runId();
  const service = new RemoteService(apiRoot, defaultStateDir());
  try {
    const { token } = await service.auth(key);
    const scenarios = scenariosOfReport(features);
    for (const { report, files: evidence } of scenarios) await service.reportScenario(token, run, report, evidence);
    console.log(`Published ${scenarios.length} scenario(s) from ${files.length} file(s) in ${jsonDir} to ${apiRoot} as run ${run}.`);
    return 0;
  } finally {
    service.close();
  }
}
