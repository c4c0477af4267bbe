/**
 * The names a user may give the `locator` option (or GLANCE_LOCATOR): `auto`
 * (every engine that can answer, best first) or one engine by name. The
 * engine registry (lib/locate/registry.ts) is typed by ENGINE_NAMES, so the
 * two cannot drift apart.
 */
export const ENGINE_NAMES = ['a11y', 'ocr', 'vision'] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];
export type LocatorChoice = 'auto' | EngineName;
export const LOCATORS: readonly LocatorChoice[] = ['auto', ...ENGINE_NAMES];

/** Engines that later versions of Glance add; naming one gets a clear answer rather than "unknown". */
export const PLANNED_ENGINES: Record<string, string> = {};
