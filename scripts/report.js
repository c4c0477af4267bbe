#!/usr/bin/env node
'use strict';
// `npm run report`: turns the Cucumber JSON under reports/json/ into
// reports/index.html. The metadata (OS, resolution, locate engine, Node and
// Glance versions) comes from the facts each scenario attached when its
// sandbox started; screenshots and find details are the steps' attachments.
const fs = require('fs');
const path = require('path');
const reporter = require('multiple-cucumber-html-reporter');

const root = path.resolve(__dirname, '..');
const SESSION_FACTS = 'Glance session: ';

/** Every `key=value` fact the scenarios attached, as key → set of values. */
function sessionFacts(features) {
  const facts = {};
  for (const feature of features) {
    for (const scenario of feature.elements ?? []) {
      for (const step of [...(scenario.before ?? []), ...(scenario.steps ?? [])]) {
        for (const embedding of step.embeddings ?? []) {
          if (embedding.mime_type !== 'text/plain') continue;
          const text = Buffer.from(embedding.data, 'base64').toString('utf8');
          if (!text.startsWith(SESSION_FACTS)) continue;
          for (const pair of text.slice(SESSION_FACTS.length).split('; ')) {
            const [key, value] = pair.split('=');
            (facts[key] ??= new Set()).add(value);
          }
        }
      }
    }
  }
  return facts;
}

function generate({ jsonDir = path.join(root, 'reports', 'json'), reportPath = path.join(root, 'reports') } = {}) {
  const files = fs.existsSync(jsonDir) ? fs.readdirSync(jsonDir).filter((f) => f.endsWith('.json')) : [];
  if (!files.length) throw new Error(`No Cucumber JSON in ${jsonDir}: run the features first (npm run features).`);
  const features = files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(jsonDir, f), 'utf8')));
  const facts = sessionFacts(features);
  const list = (key, fallback) => (facts[key] ? [...facts[key]].join(', ') : fallback);
  const { version } = require(path.join(root, 'package.json'));
  reporter.generate({
    jsonDir,
    reportPath,
    pageTitle: 'Glance test report',
    reportName: 'Glance test report',
    displayDuration: true,
    displayReportTime: true,
    customMetadata: true,
    metadata: [
      { name: 'OS', value: list('os', process.platform) },
      { name: 'Resolution', value: list('resolution', 'not recorded') },
      { name: 'Locate engine', value: list('locator', 'not recorded') },
      { name: 'Node', value: process.version },
      { name: 'Glance', value: version },
    ],
    disableLog: true,
  });
  return path.join(reportPath, 'index.html');
}

module.exports = { generate, sessionFacts };

if (require.main === module) {
  try {
    console.log(`report: ${generate()}`);
  } catch (error) {
    console.error(`glance report: ${error.message}`);
    process.exit(1);
  }
}
