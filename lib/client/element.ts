import type { Box } from '../types/screen';
import type { CacheInfo, LocatedElement } from '../types/locate';
import { GlanceError } from '../config/errors';
import type { ClickAction } from './actions';

export type { CacheInfo };

/** Thrown when acting on an Element that was not found. */
export class ElementNotFoundError extends GlanceError {
  readonly description: string;
  readonly screenshotPath: string | null;
  constructor(description: string, message: string, screenshotPath: string | null) {
    super('GLANCE_ELEMENT_NOT_FOUND', message);
    this.description = description;
    this.screenshotPath = screenshotPath;
  }
}

/** What an Element needs from the client that made it. */
export interface ElementHost {
  pointerAt(x: number, y: number, action: ClickAction, label: string): Promise<void>;
  find(description: string, options: Record<string, unknown>): Promise<Element>;
}

export interface ElementDetails {
  description: string;
  located: LocatedElement | null;
  threshold: number;
  cache: CacheInfo;
  similarity: number | null;
  /** Why it was not found: the full ElementNotFoundError message. */
  notFound: string | null;
  debugScreenshot: string | null;
  findOptions: Record<string, unknown>;
  /** The vision model's own answer, when a model was asked. */
  aiResponse?: string | null;
}

/** A located (or not located) element: interface spec 2.5. */
export class Element {
  readonly #host: ElementHost;
  readonly #details: ElementDetails;

  constructor(host: ElementHost, details: ElementDetails) {
    this.#host = host;
    this.#details = details;
  }

  found(): boolean {
    return this.#details.located !== null;
  }

  get description(): string { return this.#details.description; }
  get boundingBox(): Box | null { return this.#details.located ? { ...this.#details.located.box } : null; }
  get x(): number | null { return this.#details.located?.box.x ?? null; }
  get y(): number | null { return this.#details.located?.box.y ?? null; }
  get width(): number | null { return this.#details.located?.box.width ?? null; }
  get height(): number | null { return this.#details.located?.box.height ?? null; }
  get centerX(): number | null {
    const b = this.#details.located?.box;
    return b ? Math.round(b.x + b.width / 2) : null;
  }
  get centerY(): number | null {
    const b = this.#details.located?.box;
    return b ? Math.round(b.y + b.height / 2) : null;
  }
  get coordinates(): { x: number; y: number; centerX: number; centerY: number } | null {
    return this.found() ? { x: this.x!, y: this.y!, centerX: this.centerX!, centerY: this.centerY! } : null;
  }
  get text(): string | null { return this.#details.located?.text ?? null; }
  get confidence(): number | null { return this.#details.located?.confidence ?? null; }
  /** Why the engine chose this box (or why nothing was found). */
  get reason(): string | null { return this.#details.located?.reason ?? this.#details.notFound; }
  get engine(): string | null { return this.#details.located?.engine ?? null; }
  /** For an element not found: the screenshot with the best candidate drawn, when one was written. */
  get debugScreenshot(): string | null { return this.#details.debugScreenshot; }
  /** The engine's own address of the element (the accessibility tree's `window[…] >> role=…[name=…]`); null where no engine gave one. */
  get selector(): string | null { return this.#details.located?.selector ?? null; }
  /**
   * The locator's answer: the vision model's words where a model was asked,
   * else the answering engine's reason, or why nothing was found. The spec
   * serialises it as a string, so an element from a non-model engine still
   * says why it was (not) found.
   */
  get aiResponse(): string | null { return this.#details.aiResponse ?? this.reason; }
  get cache(): CacheInfo { return { ...this.#details.cache }; }

  /** Base64 PNG of the element's crop. */
  get screenshot(): string | null {
    return this.#details.located?.crop ?? null;
  }

  click(action: ClickAction = 'click'): Promise<void> {
    return this.act(action);
  }

  hover(): Promise<void> {
    return this.act('hover');
  }

  doubleClick(): Promise<void> {
    return this.act('double-click');
  }

  rightClick(): Promise<void> {
    return this.act('right-click');
  }

  /** Locates again: with the same description, or a new one. */
  find(newDescription?: string): Promise<Element> {
    return this.#host.find(newDescription ?? this.#details.description, this.#details.findOptions);
  }

  private async act(action: ClickAction): Promise<void> {
    if (!this.found()) {
      throw new ElementNotFoundError(this.#details.description, this.#details.notFound ?? `Element not found: '${this.#details.description}'.`, this.#details.debugScreenshot);
    }
    await this.#host.pointerAt(this.centerX!, this.centerY!, action, this.#details.description);
  }

  /** The spec's serialised form: exactly its keys, no circular references, no image data. */
  toJSON(): Record<string, unknown> {
    return {
      description: this.#details.description,
      coordinates: this.coordinates,
      found: this.found(),
      threshold: this.#details.threshold,
      x: this.x,
      y: this.y,
      cache: this.cache,
      similarity: this.#details.similarity,
      confidence: this.confidence,
      selector: this.selector,
      aiResponse: this.aiResponse,
    };
  }
}
