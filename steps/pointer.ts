import { stepsFor } from './define';

// When: the mouse.

const step = stepsFor('When');

step('I click (on )(the ){element}', async function ([description], options) {
  await (await this.mustFind(description, options)).click();
}, { finds: true });

step('I double-click (on )(the ){element}', async function ([description], options) {
  await (await this.mustFind(description, options)).doubleClick();
}, { finds: true });

step('I right-click (on )(the ){element}', async function ([description], options) {
  await (await this.mustFind(description, options)).rightClick();
}, { finds: true });

step('I hover over (the ){element}', async function ([description], options) {
  await (await this.mustFind(description, options)).hover();
}, { finds: true });

step('I click at {int}, {int}', async function ([x, y]) {
  await this.client.click(Number(x), Number(y));
});

step('I drag (the ){element} to (the ){element}', async function ([from, to], options) {
  const source = await this.mustFind(from, options);
  const target = await this.mustFind(to, options);
  await this.client.click(source.centerX!, source.centerY!, 'mouse-down');
  // Move in steps, as a hand would: drag-and-drop code listens for the moves in between.
  for (let i = 1; i <= 5; i++) {
    await this.client.hover(Math.round(source.centerX! + ((target.centerX! - source.centerX!) * i) / 5), Math.round(source.centerY! + ((target.centerY! - source.centerY!) * i) / 5));
  }
  await this.client.click(target.centerX!, target.centerY!, 'mouse-up');
}, { finds: true });
