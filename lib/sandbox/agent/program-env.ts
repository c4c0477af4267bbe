/**
 * The environment the programs of a sandbox see: the user's own, less
 * Glance's credentials and the user's desktop session (its buses, its
 * Wayland), which would lead programs out of the sandbox. Local sandboxes
 * and the self-hosted agent both start programs from it.
 */

/** Secrets of Glance's own that no program under test has any business reading. */
export const GLANCE_SECRETS = ['GLANCE_API_KEY', 'GLANCE_AGENT_TOKEN', 'GLANCE_AI_API_KEY', 'OPENAI_API_KEY'] as const;

/** Variables from the user's own desktop session that would switch the tree off or lead programs to the user's buses and display. */
export const FOREIGN_SESSION_ENV = ['DBUS_SESSION_BUS_ADDRESS', 'AT_SPI_BUS_ADDRESS', 'NO_AT_BRIDGE', 'GTK_A11Y', 'XDG_RUNTIME_DIR', 'WAYLAND_DISPLAY'] as const;

/**
 * Marks every process a sandbox started, and what those started in turn
 * (the environment is inherited): a program that forks and exits, or a
 * shell's `server &`, is still found by it when the sandbox resets or stops.
 */
export const PROGRAM_MARK = 'GLANCE_SANDBOX_PROGRAM';

/**
 * `env` without Glance's secrets; with `ownSession`, also without the user's
 * desktop session, for a sandbox that brings its own. A self-hosted agent
 * serves the desktop it runs on, session and all.
 */
export function programEnvironment(env: NodeJS.ProcessEnv, { ownSession }: { ownSession: boolean }): NodeJS.ProcessEnv {
  const kept: NodeJS.ProcessEnv = { ...env };
  for (const name of [...GLANCE_SECRETS, ...(ownSession ? FOREIGN_SESSION_ENV : [])]) delete kept[name];
  return kept;
}
