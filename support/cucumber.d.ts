// Types of `glance/cucumber` (support/cucumber.js).

/** A Cucumber profile with Glance's support code and snippets; `overrides` are merged in (require is appended). */
export function profile(overrides?: Record<string, unknown>): Record<string, unknown>;
/** The support file that registers Glance's steps, World and hooks, for a Cucumber config of your own. */
export const support: string;
/** The folder of Glance's step definitions. */
export const steps: string;
/** The World of a Glance scenario: `this.client` in custom steps. */
export type { GlanceWorld } from '../dist/support/world';
