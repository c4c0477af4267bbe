/** Where sandboxes run: a supervisor process on this machine, a Docker container, or a Kubernetes pod. */
export const SANDBOX_BACKENDS = ['local', 'docker', 'kubernetes'] as const;
export type SandboxBackendName = (typeof SANDBOX_BACKENDS)[number];
