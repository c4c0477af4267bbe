import { PNG } from 'pngjs';
import { Candidate, Screen } from '../locate/engine';
import { Box } from '../locate/geometry';
import { GlanceError } from '../config/errors';
import type { ClickAction } from './client';

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

export interface CacheInfo {
  hit: boolean;
  strategy: 'pixel-diff' | 'template-match' | 'miss';
  createdAt: string;
  diffPercent: number | null;
  imageUrl: string | null;
}

export interface ElementDetails {
  description: string;
  candidate: Candidate | null;
  screen: Screen | null;
  threshold: number;
  cache: CacheInfo;
  similarity: number | null;
  /** Why it was not found: the full ElementNotFoundError message. */
  notFound: string | null;
  debugScreenshot: string | null;
  findOptions: Record<string, unknown>;
}

/** A located (or not located) element: interface spec 2.5. */
export class Element {
  readonly #host: ElementHost;
  readonly #details: ElementDetails;
  #screenshot: string | null | undefined;

  constructor(host: ElementHost, details: ElementDetails) {
    this.#host = host;
    this.#details = details;
  }

  found(): boolean {
    return this.#details.candidate !== null;
  }

  get description(): string { return this.#details.description; }
  get boundingBox(): Box | null { return this.#details.candidate ? { ...this.#details.candidate.box } : null; }
  get x(): number | null { return this.#details.candidate?.box.x ?? null; }
  get y(): number | null { return this.#details.candidate?.box.y ?? null; }
  get width(): number | null { return this.#details.candidate?.box.width ?? null; }
  get height(): number | null { return this.#details.candidate?.box.height ?? null; }
  get centerX(): number | null {
    const b = this.#details.candidate?.box;
    return b ? Math.round(b.x + b.width / 2) : null;
  }
  get centerY(): number | null {
    const b = this.#details.candidate?.box;
    return b ? Math.round(b.y + b.height / 2) : null;
  }
  get coordinates(): { x: number; y: number; centerX: number; centerY: number } | null {
    return this.found() ? { x: this.x!, y: this.y!, centerX: this.centerX!, centerY: this.centerY! } : null;
  }
  get text(): string | null { return this.#details.candidate?.text ?? null; }
  get confidence(): number | null { return this.#details.candidate?.confidence ?? null; }
  /** Why the engine chose this box (or why nothing was found). */
  get reason(): string | null { return this.#details.candidate?.reason ?? this.#details.notFound; }
  get engine(): string | null { return this.#details.candidate?.engine ?? null; }
  get cache(): CacheInfo { return { ...this.#details.cache }; }

  /** Base64 PNG of the element's crop, made on first read. */
  get screenshot(): string | null {
    if (this.#screenshot === undefined) this.#screenshot = cropPngBase64(this.#details.screen, this.#details.candidate?.box ?? null);
    return this.#screenshot;
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
    const c = this.#details.candidate;
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
      selector: c ? `${c.engine}:${c.text ? JSON.stringify(c.text) : 'box'}@${c.box.x},${c.box.y},${c.box.width}x${c.box.height}` : null,
      aiResponse: c?.reason ?? this.#details.notFound,
    };
  }
}

function cropPngBase64(screen: Screen | null, box: Box | null): string | null {
  if (!screen || !box) return null;
  const x0 = Math.max(0, box.x), y0 = Math.max(0, box.y);
  const w = Math.min(screen.width - x0, box.width), h = Math.min(screen.height - y0, box.height);
  if (w <= 0 || h <= 0) return null;
  const png = new PNG({ width: w, height: h });
  const [r, b] = screen.format === 'bgrx' ? [2, 0] : [0, 2];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const s = ((y0 + y) * screen.width + x0 + x) * 4;
      const d = (y * w + x) * 4;
      png.data[d] = screen.data[s + r];
      png.data[d + 1] = screen.data[s + 1];
      png.data[d + 2] = screen.data[s + b];
      png.data[d + 3] = 255;
    }
  }
  return PNG.sync.write(png).toString('base64');
}
