import { stepsFor } from './define';
import { containsText } from '../lib/locate/text-match';
import { AssertionError } from '../lib/config/errors';
import { hasQuoteMark } from '../lib/util/quotes';

// Then: what should be on the screen.

const step = stepsFor('Then');

/** The description as the step wrote it, quoted once: `'alpha'` stays as it is, `buttons` becomes 'buttons'. */
const named = (description: string): string => (hasQuoteMark(description) ? description : `'${description}'`);

step('I should see (the ){element}', async function ([description], options) {
  await this.mustFind(description, options);
}, { finds: true });

step('I should not see (the ){element}', async function ([description], options) {
  await this.client.settle();
  const element = await this.locate(description, { ...options, timeout: 0 });
  if (element.found()) {
    throw new Error(`Expected not to see ${named(description)}, but it is on the screen at ${element.x},${element.y} (${element.width}x${element.height}): read '${element.text}'.`);
  }
}, { finds: true });

step('I should see the text {quoted}', async function ([text], options) {
  await this.mustFind(`The text "${text}"`, options);
}, { finds: true });

/**
 * How many there are on the still screen. A count is taken from the cache
 * only on the very same pixels (threshold 0): one element more or less may
 * change fewer pixels than any looser threshold allows.
 */
async function countOf(world: import('../support/world').GlanceWorld, description: string): Promise<number> {
  await world.client.settle();
  return (await world.client.findAll(description, { cacheThreshold: 0 })).length;
}

step('I should see {int} {element}', async function ([count, description]) {
  const seen = await countOf(this, description);
  if (seen !== Number(count)) throw new Error(`Expected to see ${count} ${named(description)}, but saw ${seen}.`);
});

step('I should see at least {int} {element}', async function ([count, description]) {
  const seen = await countOf(this, description);
  if (seen < Number(count)) throw new Error(`Expected to see at least ${count} ${named(description)}, but saw ${seen}.`);
});

step('(the ){element} should contain (the )text {quoted}', async function ([description, expected], options) {
  const element = await this.mustFind(description, options);
  const text = await this.client.readText(element);
  if (!containsText(text, expected)) {
    throw new Error(`Expected '${description}' to contain the text '${expected}', but it reads '${text}'.`);
  }
}, { finds: true });

step('I should see that {quoted}', async function ([statement]) {
  try {
    await this.client.assert(statement);
  } catch (error) {
    if (error instanceof AssertionError) throw new Error(`Expected that ${statement}, but: ${error.reason}`);
    throw error;
  }
});

step('I should see:', async function (_args, options, table) {
  for (const [description] of table!.raw()) await this.mustFind(description, options);
}, { table: true });

step('the command output should contain {quoted}', async function ([expected]) {
  if (this.lastOutput === null) throw new Error("No command has run yet: use 'I run ...' before checking its output.");
  if (!this.lastOutput.includes(expected)) throw new Error(`Expected the command output to contain '${expected}', but it was:\n${this.lastOutput}`);
});
