import sharp from 'sharp';
import type { Screen } from '../types/screen';
import type { Candidate, ModelCall } from '../types/locate';
import type { LocatorChoice } from '../config/locators';
import type { VisionModelSettings } from '../config/vision';
import { buildChain } from '../locate/registry';
import { EngineChain } from '../locate/chain';
import { LocateRefusal, SandboxHandle } from '../locate/engine';
import { parseQuery, TypeHint, wrapDescription } from '../locate/query';
import { FindOutcome, FindSettings, runFind } from './find';

/**
 * Locating on a screenshot file, without a sandbox: the `glance locate` CLI
 * and the accuracy benchmark go through here, and so through the same find
 * pipeline and engine chain as a session.
 */
export async function loadScreen(file: string): Promise<Screen> {
  const { data, info } = await sharp(file).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data, format: 'rgba' };
}

export class OfflineLocator {
  private readonly chain: EngineChain;

  /** `sandbox`: a live sandbox the engines may ask for more than pixels (its accessibility tree); null for a screenshot file. */
  constructor(locator: LocatorChoice = 'auto', vision: VisionModelSettings | null = null, private readonly sandbox: SandboxHandle | null = null) {
    this.chain = buildChain(locator, vision);
  }

  /** The engines, as the report names them. */
  get label(): string {
    return this.chain.label;
  }

  /** One find on the screen, with no waiting; `onModelCall` hears of every vision-model call. */
  locate(screen: Screen, description: string, settings: Partial<FindSettings> = {}, onModelCall?: (call: ModelCall) => void): Promise<FindOutcome> {
    const full: FindSettings = { timeout: 0, type: 'any', zoom: false, verify: false, ai: {}, ...settings };
    return runFind({ chain: this.chain, capture: async () => screen, screenGiven: true, sandbox: this.sandbox, log: () => undefined, onModelCall }, description, full);
  }

  /** Every candidate the engines see for the description (the `--overlay` view and findAll); [] when they cannot answer. */
  async all(screen: Screen, description: string, type: TypeHint = 'any'): Promise<Candidate[]> {
    const context = { screen, sandbox: this.sandbox, deadline: Date.now() + 10_000, ai: {} };
    return this.chain.locate(context, parseQuery(wrapDescription(description, type)), { all: true })
      .then((answer) => answer.candidates)
      .catch((error) => {
        if (error instanceof LocateRefusal) return [];
        throw error;
      });
  }

  /** Forgets what the engines memoised, so the next screen is read as never seen (benchmarks). */
  forget(): void {
    this.chain.forget();
  }

  stop(): Promise<void> {
    return this.chain.stop();
  }
}
