import { stepsFor } from './define';
import { evidenceAttachment, STEP_EVIDENCE } from '../lib/report/step-evidence';

// When: evidence for the report. The picture is a file under
// .glance/screenshots/, written off the hot path by the end of the scenario;
// the report stores it once and shows it scaled.

const step = stepsFor('When');

step('I take a screenshot', async function () {
  this.attach(evidenceAttachment({ kind: 'picture', title: 'screenshot', picture: await this.client.screenshot('', { background: true }) }), STEP_EVIDENCE);
});

step('I take a screenshot named {quoted}', async function ([name]) {
  this.attach(evidenceAttachment({ kind: 'picture', title: name, picture: await this.client.screenshot(name, { background: true }) }), STEP_EVIDENCE);
});
