/** Where Glance keeps its state (database, cache crops, screenshots, sandboxes) unless told otherwise. */
export const DEFAULT_STATE_DIR = '.glance';

/** The state folder GLANCE_STATE_DIR names, else `.glance` in the working directory. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GLANCE_STATE_DIR || DEFAULT_STATE_DIR;
}
