import type { AiOptions } from '../../config/options';
import type { VisionModelSettings } from '../../config/vision';
import type { Box } from '../../types/screen';
import type { ModelCall } from '../../types/locate';
import { Candidate, Capability, EngineContext, LocateEngine, Verdict } from '../engine';
import { readingOrder } from '../geometry';
import { Query } from '../query';
import { zoomRegion } from '../chain';
import { FAMILY_ADAPTERS, Family, FracBox, Reading, Size } from './families';
import { Sampling, VisionClient } from './client';
import { imageUrl } from './images';
import { assertPrompt, namePrompt, readJudgement, readName, verifyPrompt } from './prompts';

/**
 * The vision engine: any OpenAI-compatible vision model, asked in its
 * family's own convention and read back into screen pixels. In `auto` it
 * comes after the accessibility tree and OCR: it answers what they cannot
 * (icons, colours, pictures, layout) and what they find nothing for.
 */

/** A model gives no score; a box it drew counts a little more than a point it named. */
const BOX_CONFIDENCE = 0.9;
const POINT_CONFIDENCE = 0.85;
/** Side of the box made around a point where a box was asked for, in pixels of the screen. */
const POINT_BOX = 16;
const MAX_TOKENS = { one: 400, all: 1500, judge: 300, name: 60 };

export class VisionEngine implements LocateEngine {
  readonly name = 'vision';
  /** Text and labels too, as a last resort: the chain asks the engines before it first. */
  readonly capabilities: readonly Capability[] = ['icon', 'visual', 'text', 'label', 'assert'];
  readonly needsEvidence = true;
  private readonly client: VisionClient;
  private readonly family: Family;

  constructor(readonly settings: VisionModelSettings) {
    this.client = new VisionClient(settings);
    this.family = FAMILY_ADAPTERS[settings.family];
  }

  /** `vision (Qwen/Qwen2.5-VL-7B-Instruct, qwen2.5-vl)`: what the report's metadata shows. */
  get label(): string {
    return `${this.name} (${this.settings.model}, ${this.settings.family})`;
  }

  async locate(context: EngineContext, query: Query, options: { all?: boolean } = {}): Promise<Candidate[]> {
    const all = !!options.all;
    const source: Size = { width: context.screen.width, height: context.screen.height };
    const sent = this.family.sendSize(source);
    const prompt = this.family.prompt(query.description, sent, all);
    const purpose: ModelCall['purpose'] = context.crop ? 'zoom' : all ? 'locate-all' : 'locate';
    const { value: reading, call } = await this.client.ask<Reading>({
      purpose, system: prompt.system, text: prompt.user, images: [await imageUrl(context.screen, sent)],
      sampling: sampling(context.ai, 0), maxTokens: all ? MAX_TOKENS.all : MAX_TOKENS.one, deadline: context.deadline,
    }, (answer) => {
      const reading = this.family.read(answer, sent);
      return reading.boxes.length || reading.notFound ? reading : null;
    });
    context.onModelCall?.(call);
    if (!reading.boxes.length) return [];
    const scale = context.crop?.scale ?? 1;
    const candidates = (all ? reading.boxes : reading.boxes.slice(0, 1)).map((f) => this.candidate(f, source, scale, call));
    return all ? readingOrder(candidates) : candidates;
  }

  /** A second call, at temperature 0 unless set: the part of the screen around the box, the box marked, and "is this it?". */
  async verify(context: EngineContext, candidate: Candidate, query: Query): Promise<Verdict> {
    const region = zoomRegion(context.screen, candidate.box);
    const { value: judgement, call } = await this.client.ask({
      purpose: 'verify', text: verifyPrompt(query.description),
      images: [await imageUrl(context.screen, { width: region.width, height: region.height }, { region, marker: candidate.box })],
      sampling: sampling(context.ai, 0), maxTokens: MAX_TOKENS.judge, deadline: context.deadline,
    }, readJudgement);
    context.onModelCall?.(call);
    return { ok: judgement.yes, confidence: judgement.yes ? 1 : 0, reason: `the vision model says ${judgement.yes ? 'it matches' : 'it does not match'}: ${judgement.reason}` };
  }

  /** The recorder's naming of an element with no words: the part of the screen around it, the box marked, and "what would a tester call it?". */
  async nameAt(context: EngineContext, box: Box): Promise<string | null> {
    const region = zoomRegion(context.screen, box);
    const { value: name, call } = await this.client.ask({
      purpose: 'name', text: namePrompt(),
      images: [await imageUrl(context.screen, { width: region.width, height: region.height }, { region, marker: box })],
      sampling: sampling(context.ai, 0), maxTokens: MAX_TOKENS.name, deadline: context.deadline,
    }, readName);
    context.onModelCall?.(call);
    return name;
  }

  /** assert(): the whole screen and the statement, at the model's default temperature unless set. */
  async judge(context: EngineContext, statement: string): Promise<Verdict> {
    const size = this.family.sendSize({ width: context.screen.width, height: context.screen.height });
    const { value: judgement, call } = await this.client.ask({
      purpose: 'assert', text: assertPrompt(statement), images: [await imageUrl(context.screen, size)],
      sampling: sampling(context.ai, undefined), maxTokens: MAX_TOKENS.judge, deadline: context.deadline,
    }, readJudgement);
    context.onModelCall?.(call);
    return { ok: judgement.yes, confidence: judgement.yes ? 1 : 0, reason: judgement.reason };
  }

  /** A box on the sent image back on the screen (or on the zoom crop, which the chain maps back). */
  private candidate(f: FracBox, source: Size, scale: number, call: ModelCall): Candidate {
    let box: Box = {
      x: Math.round(f.x1 * source.width), y: Math.round(f.y1 * source.height),
      width: Math.max(1, Math.round((f.x2 - f.x1) * source.width)), height: Math.max(1, Math.round((f.y2 - f.y1) * source.height)),
    };
    if (f.point) {
      // A point where a box was asked for: a small box around it, so the click lands on the point.
      const side = POINT_BOX * scale;
      box = { x: Math.round(box.x - side / 2), y: Math.round(box.y - side / 2), width: side, height: side };
    }
    return {
      box, confidence: f.point ? POINT_CONFIDENCE : BOX_CONFIDENCE, engine: this.name, aiResponse: call.answer,
      reason: `the vision model (${this.settings.model}, ${this.family.name}) ${f.point ? 'pointed at' : 'drew a box at'} ${box.x},${box.y}${f.point ? '' : ` ${box.width}x${box.height}`}`,
    };
  }
}

/** The `ai` settings as request fields; `temperature` falls back to the purpose's default (undefined: the model's own). */
function sampling(ai: AiOptions, temperature: number | undefined): Sampling {
  return {
    temperature: ai.temperature ?? temperature,
    top_p: ai.top?.p,
    top_k: ai.top?.k,
  };
}
