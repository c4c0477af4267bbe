import type { GlanceParameters } from './settings';

/**
 * What this process will do in the Cucumber run, known while the support code
 * loads: whether it runs scenarios (a serial run, or a worker of a parallel
 * one) or only hands them out (the coordinator of a parallel run, or a dry
 * run), and the profile's world parameters.
 */
export interface PlannedRun {
  runsScenarios: boolean;
  worldParameters: GlanceParameters;
}

/** The coordinator hands its workers the plan in this variable: a worker's own arguments are not Cucumber's. */
const WORKER_PLAN = 'GLANCE_WORKER_PLAN';

/**
 * The run's plan, or null where it cannot be known: Cucumber run through its
 * API rather than its command line. In a coordinator it also leaves the plan
 * for the workers it starts next.
 */
export async function plannedRun(): Promise<PlannedRun | null> {
  if (process.env.CUCUMBER_WORKER_ID !== undefined) {
    const plan = process.env[WORKER_PLAN];
    delete process.env[WORKER_PLAN]; // the sandbox's programs inherit nothing of it
    return plan ? { runsScenarios: true, worldParameters: JSON.parse(plan) } : null;
  }
  if (!/[\\/]@cucumber[\\/]cucumber[\\/]bin[\\/]cucumber(-js|\.js)?$/.test(require.main?.filename ?? '')) return null;
  const configuration = await cliConfiguration();
  const worldParameters = (configuration.worldParameters ?? {}) as GlanceParameters;
  if (configuration.dryRun) return { runsScenarios: false, worldParameters };
  if (configuration.parallel > 0) {
    process.env[WORKER_PLAN] = JSON.stringify({ glance: worldParameters.glance });
    return { runsScenarios: false, worldParameters };
  }
  return { runsScenarios: true, worldParameters };
}

/** The configuration Cucumber's command line is running with: its arguments, its profiles and its configuration file. */
async function cliConfiguration(): Promise<{ dryRun: boolean; parallel: number; worldParameters?: unknown }> {
  const { cucumberModule } = require('./cucumber-api') as typeof import('./cucumber-api');
  const { ArgvParser } = cucumberModule('lib/configuration/index') as { ArgvParser: { parse(argv: string[]): { options: { config?: string; profile: string[] }; configuration: object } } };
  const { loadConfiguration } = cucumberModule('api') as typeof import('@cucumber/cucumber/api');
  const { options, configuration } = ArgvParser.parse(process.argv);
  const { useConfiguration } = await loadConfiguration({ file: options.config, profiles: options.profile, provided: configuration }, { cwd: process.cwd(), env: process.env });
  return useConfiguration;
}
