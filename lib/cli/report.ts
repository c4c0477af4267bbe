import fs from 'fs';
import path from 'path';
import { InvalidOptionError } from '../config/errors';
import { defaultStateDir } from '../config/state-dir';
import { runId } from '../client/analytics';
import { RemoteService } from '../service/remote-service';
import { JsonFeature, scenariosOfReport } from '../report/publish';
import { knownFlags, parseFlags } from './flags';
import { renderHtmlReport, writeHtmlReport } from '../report/html-report';
import { EvidenceRef, locateEvidence, mergeFeatures, readShard } from '../report/shards';
import { TeamServerEvidence } from './server-evidence';

/**
 * `glance report [--json DIR] [--out DIR]`: Cucumber JSON to an HTML report
 * (defaults: reports/json, reports). With `--publish`, the same JSON goes to
 * the team server (GLANCE_API_ROOT or --api-root, with GLANCE_API_KEY) as one
 * run (GLANCE_RUN_ID or --run), evidence files and all. With `--merge
 * PATH...`, the shards of one run become one report (see mergeShards).
 */
export async function reportCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args, ['publish', 'merge']);
  knownFlags('report', flags, ['json', 'out', 'publish', 'merge', 'api-root', 'run']);
  if (flags.merge) return mergeShards(words, flags);
  if (words.length) throw new InvalidOptionError(words[0], `glance report takes no paths but with --merge (got '${words[0]}'). To join shards: glance report --merge PATH... --out DIR.`);
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

/**
 * `glance report --merge PATH... [--out DIR]`: the shards of one run (each a
 * message file, a Cucumber JSON file or a reports folder) as one HTML report.
 * The evidence files their records name are looked for beside each shard,
 * then on the team server the shards reported to (GLANCE_API_ROOT or
 * --api-root, GLANCE_API_KEY, and the run: GLANCE_RUN_ID or --run); what is
 * found nowhere is listed, not dropped in silence.
 */
async function mergeShards(paths: string[], flags: Record<string, string | true>): Promise<number> {
  if (!paths.length) throw new InvalidOptionError('merge', 'glance report --merge needs the shards to join: glance report --merge shard-1/reports shard-2/reports --out merged.');
  const reportPath = path.resolve(typeof flags.out === 'string' ? flags.out : 'reports');
  const shards = paths.map(readShard);
  const apiRoot = typeof flags['api-root'] === 'string' ? flags['api-root'] : process.env.GLANCE_API_ROOT;
  const run = typeof flags.run === 'string' ? flags.run : process.env.GLANCE_RUN_ID;
  const key = process.env.GLANCE_API_KEY;
  const server = apiRoot && key && run ? new TeamServerEvidence(apiRoot, defaultStateDir(), key, run, path.join(reportPath, 'shard-evidence')) : null;
  const missing: EvidenceRef[] = [];
  try {
    for (const shard of shards) missing.push(...await locateEvidence(shard, server?.source ?? null));
  } finally {
    server?.close();
  }
  const features = mergeFeatures(shards);
  const scenarios = features.reduce((n, f) => n + (f.elements ?? []).filter((e) => e.type !== 'background').length, 0);
  const facts = [
    { label: 'Shards', value: `${shards.length}: ${paths.join(', ')}` },
    ...(run ? [{ label: 'Run', value: run }] : []),
    { label: 'Evidence files not found', value: String(missing.length) },
  ];
  const page = await renderHtmlReport([{ name: 'merged.json', features }], reportPath, facts);
  console.log(`report: ${page} (${scenarios} scenario(s) of ${features.length} feature(s) from ${shards.length} shard(s))`);
  if (missing.length) {
    const where = server ? 'beside their shard or on the team server' : `beside their shard${apiRoot && key ? ' (give the run with --run or GLANCE_RUN_ID to look on the team server too)' : ''}`;
    console.error(`${missing.length} evidence file(s) were found neither ${where}; the report says so where each was shown:`);
    for (const ref of missing) console.error(`  ${ref.shard}: ${ref.scenario}: ${ref.kind} ${ref.file}`);
  }
  return 0;
}
