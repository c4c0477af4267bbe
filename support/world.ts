import path from 'path';
import { cucumber, IWorldOptions } from './cucumber-api';
import type { Client } from '../lib/client/client';
import { Element } from '../lib/client/element';
import { InvalidOptionError } from '../lib/config/errors';
import { GlanceParameters, ScenarioSettings } from './settings';
import { StepFindOptions } from '../steps/phrase';
import { bestCandidate, evidenceAttachment, STEP_EVIDENCE } from '../lib/report/step-evidence';

/** A located element's box in the report's pictures; a missed one's best candidate is red. */
const FOUND_COLOUR: [number, number, number] = [20, 170, 60];

/** The engines a failed find tried, from its reason's `tried:` line. */
function triedEngines(reason: string | null): string {
  return /tried: (.+?) engine/.exec(reason ?? '')?.[1] ?? 'none';
}

/**
 * One Client per scenario. Custom steps use `this.client`; Glance's own steps
 * also keep the last command output and what the last find saw, for the
 * report and for failure screenshots.
 */
export class GlanceWorld extends cucumber.World<GlanceParameters> {
  client!: Client;
  settings!: ScenarioSettings;
  /** stdout of the last `I run` step. */
  lastOutput: string | null = null;
  /** The last element a step located (or failed to), drawn on a failure screenshot. */
  lastFind: Element | null = null;
  /** The last element a step did locate: where the scenario last acted, drawn on a failure screenshot. */
  lastFound: Element | null = null;
  /** The step that failed, and the screenshot of its screen (reported to the team server). */
  failedStep: { text: string; picture: string | null } | null = null;

  constructor(options: IWorldOptions<GlanceParameters>) {
    super(options);
  }

  /** A step value: `'$NAME'` reads the environment and is then a secret; anything else is taken as written. */
  value(raw: string): { text: string; secret: boolean } {
    if (!raw.startsWith('$')) return { text: raw, secret: false };
    const name = raw.slice(1);
    const text = process.env[name];
    if (text === undefined) {
      throw new InvalidOptionError(name, `The environment variable ${name} (from '${raw}' in the step) is not set. Set it before running, e.g. ${name}=... npx cucumber-js.`);
    }
    return { text, secret: true };
  }

  /** A URL from a step: relative ones resolve against the configured baseUrl. */
  url(raw: string): string {
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) return raw;
    if (!this.settings.baseUrl) {
      throw new InvalidOptionError('baseUrl', `'${raw}' is a relative URL, and no baseUrl is set. Use a full URL, or set worldParameters.glance.baseUrl or GLANCE_BASE_URL.`);
    }
    return new URL(raw, this.settings.baseUrl.endsWith('/') ? this.settings.baseUrl : `${this.settings.baseUrl}/`).href;
  }

  /**
   * Locates an element for a step, with the scenario's defaults and the
   * step's suffixes, and attaches what the report shows of it: the screen with
   * the located box (or the best candidate), the engine, the cache and the time.
   */
  async locate(description: string, options: StepFindOptions = {}): Promise<Element> {
    const started = performance.now();
    const element = await this.client.find(description, { zoom: this.settings.zoom, ...options });
    this.lastFind = element;
    if (element.found()) this.lastFound = element;
    const ms = Math.round(performance.now() - started);
    const cache = element.cache;
    const box = element.found() ? element.boundingBox : bestCandidate(element.reason);
    const picture = element.found()
      ? await this.client.reportPicture(description, box ? [{ box, colour: FOUND_COLOUR }] : [])
      : element.debugScreenshot;
    this.attach(evidenceAttachment({
      kind: 'find', description, found: element.found(), engine: element.engine ?? triedEngines(element.reason), ms,
      cache: { hit: cache.hit, strategy: cache.strategy, diffPercent: cache.diffPercent },
      confidence: element.confidence, box, reason: element.reason, picture,
    }), STEP_EVIDENCE);
    return element;
  }

  /** Locates an element that must be there; fails the step with what was looked for and what was seen. */
  async mustFind(description: string, options: StepFindOptions = {}): Promise<Element> {
    const element = await this.locate(description, options);
    if (!element.found()) throw new Error(element.reason ?? `Could not find '${description}'.`);
    return element;
  }

  featureName(uri: string): string {
    return path.basename(uri);
  }
}
