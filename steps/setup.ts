import { stepsFor } from './define';
import { compilePhrase } from './phrase';

// Given: what the sandbox runs.

const step = stepsFor('Given');

/** Read by the Before hook, which applies it before the sandbox starts. */
export const RESOLUTION_STEP = compilePhrase('the screen resolution is {quoted}');

step('I open {quoted} in the browser', async function ([url]) {
  await this.client.provision.chrome({ url: this.url(url) });
});

step('I launch {quoted}', async function ([command]) {
  await this.client.provision.app({ command });
});

step('I focus the {quoted} window', async function ([name]) {
  await this.client.focusApplication(name);
});

step('I run {quoted}', async function ([raw]) {
  const { text } = this.value(raw);
  this.lastOutput = await this.client.exec('sh', text);
});

step('the screen resolution is {quoted}', async function ([resolution]) {
  const actual = this.client.getInstance()?.resolution;
  if (actual !== resolution) {
    throw new Error(`The sandbox runs at ${actual}, not ${resolution}. 'the screen resolution is' belongs in the Background, or in the first step of the scenario, so it applies before the sandbox starts.`);
  }
});
