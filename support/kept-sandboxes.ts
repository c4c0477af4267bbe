/**
 * The sandboxes a worker keeps between scenarios with `reuseSandbox`: one
 * per resolution, up to a limit, the least recently used stopped first. A
 * suite that moves between two resolutions (a narrow layout, then the wide
 * one again) goes back to the sandbox it left, and its kept browser, instead
 * of starting a new one at each move.
 */
export class KeptSandboxes {
  /** The least recently used first. */
  private kept: { id: string; resolution: string }[] = [];

  constructor(private readonly limit: number, private readonly stop: (id: string) => Promise<void>) {}

  /** The sandbox kept at this resolution, if there is one. */
  at(resolution: string): string | null {
    return this.kept.find((k) => k.resolution === resolution)?.id ?? null;
  }

  /** Notes the sandbox a scenario runs in; beyond the limit, the least recently used one is stopped. */
  async use(id: string, resolution: string): Promise<void> {
    // A new one is used only where none is kept at its resolution (at() found none, or forget() let it go).
    this.kept = this.kept.filter((k) => k.id !== id);
    this.kept.push({ id, resolution });
    while (this.kept.length > this.limit) await this.stop(this.kept.shift()!.id);
  }

  /** Lets go of a sandbox without stopping it: it is gone, or kept as a failure's evidence. */
  forget(id: string): void {
    this.kept = this.kept.filter((k) => k.id !== id);
  }

  async stopAll(): Promise<void> {
    const all = this.kept;
    this.kept = [];
    for (const { id } of all) await this.stop(id);
  }
}
