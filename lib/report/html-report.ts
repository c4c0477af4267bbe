import fs from 'fs';
import os from 'os';
import path from 'path';
import { collectSessionFacts, CucumberJsonFeature } from './session-facts';
import { describeUsage, sumUsage } from './model-usage';
import { InvalidOptionError } from '../config/errors';
import { MediaStore } from './media';
import { enrichFeatures, JsonFeature } from './enrich';
import { GLANCE_VERSION } from '../util/version';

export interface ReportOptions {
  /** Folder of Cucumber JSON files (the `json:` formatter's output). */
  jsonDir: string;
  /** Folder the report is written to; its page is `index.html` there. */
  reportPath: string;
}

/**
 * Writes the HTML report a product owner reads: features, scenarios and
 * durations; for each find step the screen it looked at with the box, the
 * engine, the cache and the time; for a failed step what was looked for,
 * what was seen instead and the dashcam clip at that moment; and as metadata
 * the OS, resolution and locate engine the scenarios ran with, the vision
 * model's usage, and the Node and Glance versions. Pictures and clips are
 * files in `media/`, each stored once. Returns the path of index.html.
 */
export async function writeHtmlReport({ jsonDir, reportPath }: ReportOptions): Promise<string> {
  const files = fs.existsSync(jsonDir) ? fs.readdirSync(jsonDir).filter((f) => f.endsWith('.json')) : [];
  if (!files.length) {
    throw new InvalidOptionError('jsonDir', `No Cucumber JSON in ${jsonDir}. Run the features with a 'json:${path.join(jsonDir, 'cucumber.json')}' format first (npm run features does).`);
  }
  // Each feature's metadata says what its own scenarios ran with; the reporter reads it from the JSON.
  const parsed = files.map((file) => ({ name: file, features: JSON.parse(fs.readFileSync(path.join(jsonDir, file), 'utf8')) as CucumberJsonFeature[] }));
  return renderHtmlReport(parsed, reportPath);
}

/** A line of the run's own facts, shown above the features. */
export interface RunFact { label: string; value: string }

/**
 * Writes the HTML report of Cucumber JSON reports already read (`name` is
 * each one's file name), with `runFacts` beside the run's vision model usage.
 */
export async function renderHtmlReport(reports: { name: string; features: CucumberJsonFeature[] }[], reportPath: string, runFacts: RunFact[] = []): Promise<string> {
  const version = GLANCE_VERSION;
  const parsed = reports.map((r) => r.features);
  const files = reports.map((r) => r.name);
  const runUsage = describeUsage(sumUsage(parsed.flat()));
  const media = new MediaStore(reportPath);
  for (const features of parsed) await enrichFeatures(features as JsonFeature[], media);
  const withMetadata = parsed.map((features) => features.map((feature) => {
    const facts = collectSessionFacts([feature]);
    const list = (key: string) => [...(facts.get(key) ?? ['not recorded'])].join(', ');
    return {
      ...feature,
      metadata: [
        { name: 'OS', value: list('os') },
        { name: 'Resolution', value: list('resolution') },
        { name: 'Locate engine', value: list('locator') },
        { name: 'Vision model usage', value: describeUsage(sumUsage([feature])) },
        { name: 'Node', value: process.version },
        { name: 'Glance', value: version },
      ],
    };
  }));
  const enriched = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-report-'));
  try {
    withMetadata.forEach((features, i) => fs.writeFileSync(path.join(enriched, files[i]), JSON.stringify(features)));
    // Loaded here: only the report needs it.
    const reporter = require('multiple-cucumber-html-reporter');
    reporter.generate({
      jsonDir: enriched,
      reportPath,
      pageTitle: 'Glance test report',
      reportName: 'Glance test report',
      displayDuration: true,
      displayReportTime: true,
      customMetadata: true,
      // The run's total, above the features.
      customData: { title: 'Run', data: [...runFacts, { label: 'Vision model usage', value: runUsage }] },
      disableLog: true,
    });
  } finally {
    fs.rmSync(enriched, { recursive: true, force: true });
  }
  return path.join(reportPath, 'index.html');
}
