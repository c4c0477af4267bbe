import fs from 'fs';
import { step } from './define';

// When: evidence for the report.

step('I take a screenshot', async function () {
  this.attach(fs.readFileSync(await this.client.screenshot()), 'image/png');
});

step('I take a screenshot named {string}', async function ([name]) {
  this.attach(fs.readFileSync(await this.client.screenshot(name)), 'image/png');
});
