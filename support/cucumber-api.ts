import type * as CucumberApi from '@cucumber/cucumber';

/**
 * The Cucumber that runs the project's features. Steps and hooks must be
 * registered with that very instance: when Glance is linked into a project
 * (npm link, a file: dependency, a monorepo) Node would otherwise load
 * Glance's own copy, and every Glance step would be "undefined". So the
 * project's copy is taken first, Glance's own only when the project has none.
 */
export function cucumberModule(subpath = ''): unknown {
  const name = subpath ? `@cucumber/cucumber/${subpath}` : '@cucumber/cucumber';
  try {
    return require(require.resolve(name, { paths: [process.cwd()] }));
  } catch {
    return require(name);
  }
}

export const cucumber = cucumberModule() as typeof CucumberApi;
export type { IWorldOptions, ITestCaseHookParameter } from '@cucumber/cucumber';
