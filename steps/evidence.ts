import fs from 'fs';
import { stepsFor } from './define';

// When: evidence for the report.

const step = stepsFor('When');

step('I take a screenshot', async function () {
  this.attach(fs.readFileSync(await this.client.screenshot()), 'image/png');
});

step('I take a screenshot named {quoted}', async function ([name]) {
  this.attach(fs.readFileSync(await this.client.screenshot(name)), 'image/png');
});
