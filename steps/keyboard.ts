import { stepsFor } from './define';
import type { GlanceWorld } from '../support/world';
import type { StepFindOptions } from './phrase';

// When: the keyboard.

const step = stepsFor('When');

async function typeInto(world: GlanceWorld, description: string, raw: string, options: StepFindOptions): Promise<void> {
  const field = await world.mustFind(description, options);
  const { text, secret } = world.value(raw);
  await world.client.type(text, { secret, into: { x: field.centerX!, y: field.centerY! } });
}

step('I type {quoted}', async function ([raw]) {
  const { text, secret } = this.value(raw);
  await this.client.type(text, { secret });
});

step('I type {quoted} into (the ){element}', async function ([raw, description], options) {
  await typeInto(this, description, raw, options);
}, { finds: true });

step('I clear (the ){element}', async function ([description], options) {
  await (await this.mustFind(description, options)).click();
  await this.client.pressKeys(['ctrl+a']);
  await this.client.pressKeys(['delete']);
}, { finds: true });

step('I press {quoted}', async function ([keys]) {
  await this.client.pressKeys([keys]);
});

step('I press {quoted} {int} times', async function ([keys, times]) {
  await this.client.pressKeys([keys], { times: Number(times) });
});

step('I fill in:', async function (_args, options, table) {
  const rows = table!.raw();
  const body = rows.length && rows[0].map((c) => c.trim().toLowerCase()).join('|') === 'field|value' ? rows.slice(1) : rows;
  for (const [field, value] of body) await typeInto(this, field, value, options);
}, { table: true });

step('I select {quoted} from (the ){element}', async function ([option, description], options) {
  await (await this.mustFind(description, options)).click();
  const { text } = this.value(option);
  // The option is looked for as long as any find (a loaded machine reads the open list slowly), not a shorter while.
  await (await this.mustFind(`The text "${text}"`, options)).click();
}, { finds: true });
