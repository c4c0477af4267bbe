import path from 'path';
import { parseFlags } from './flags';
import { writeHtmlReport } from '../report/html-report';

/** `glance report [--json DIR] [--out DIR]`: Cucumber JSON to an HTML report (defaults: reports/json, reports). */
export async function reportCommand(args: string[]): Promise<number> {
  const { flags } = parseFlags(args);
  const jsonDir = path.resolve(typeof flags.json === 'string' ? flags.json : path.join('reports', 'json'));
  const reportPath = path.resolve(typeof flags.out === 'string' ? flags.out : 'reports');
  console.log(`report: ${await writeHtmlReport({ jsonDir, reportPath })}`);
  return 0;
}
