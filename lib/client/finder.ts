import { AssertOptions, FindAllOptions, FindOptions, ResolvedClientOptions, resolveAssertOptions, resolveFindOptions, ResolvedFindOptions } from '../config/options';
import { AssertionError, InvalidOptionError } from '../config/errors';
import { show } from '../config/validate';
import { callSite, CallSite } from '../util/call-site';
import type { LocateResult, ModelCall } from '../types/locate';
import type { LocateRequest, Service } from '../service/service';
import { Element, ElementDetails, ElementHost, ElementNotFoundError } from './element';
import { defaultCacheKey } from './cache-key';
import { CommandRunner } from './command-runner';
import { ClientSession } from './session';
import type { ClickAction } from './actions';

/** `find()`'s promise, which can be acted on directly: `await client.find('Submit').click()`. */
export type FindResult = Promise<Element> & {
  click(action?: ClickAction): Promise<void>;
  hover(): Promise<void>;
  doubleClick(): Promise<void>;
  rightClick(): Promise<void>;
  found(): Promise<boolean>;
};

/** The `ai:usage` event: one vision-model call, with the command and description it was made for. */
export interface AiUsageEvent extends Omit<ModelCall, 'answer'> {
  command: 'find' | 'findAll' | 'assert';
  description: string;
}

/** find, findAll, readText and assert: the Client's questions to the Service, answered as Elements. */
export class Finder {
  constructor(
    private readonly options: ResolvedClientOptions,
    private readonly service: Service,
    private readonly session: ClientSession,
    private readonly runner: CommandRunner,
    private readonly host: ElementHost,
  ) {}

  find(description: string, options: FindOptions | number | undefined): FindResult {
    const site = callSite();
    const element = this.runner.run('find', [description, options ?? {}], async (context) => {
      const settings = this.settings(description, options, 'find');
      const request = this.request(description, settings, site);
      request.screenshotName = this.runner.screenshots.nameFor('find', 'notfound', description, site);
      const result = await this.service.locate(this.session.requireSession(), request);
      this.emitUsage('find', description, result.modelCalls);
      if (result.notFound) this.runner.log(result.notFound.split('\n')[0]);
      // A find that failed names the engines it tried: no engine answered it.
      context.note({ description, cacheHit: result.cache.hit, phases: result.phases, ...usage(result.modelCalls), ...(result.element ? { engine: result.element.engine } : { outcome: 'not-found' as const }) });
      return this.element(description, result, settings, options);
    }, description);
    const act = (run: (e: Element) => Promise<void>) => element.then(run);
    return Object.assign(element, {
      click: (action?: ClickAction) => act((e) => e.click(action)),
      hover: () => act((e) => e.hover()),
      doubleClick: () => act((e) => e.doubleClick()),
      rightClick: () => act((e) => e.rightClick()),
      found: () => element.then((e) => e.found()),
    });
  }

  findAll(description: string, options: FindAllOptions | number | undefined): Promise<Element[]> {
    const site = callSite();
    return this.runner.run('findAll', [description, options ?? {}], async (context) => {
      const settings = this.settings(description, options, 'findAll');
      const result = await this.service.locateAll(this.session.requireSession(), this.request(description, settings, site));
      this.emitUsage('findAll', description, result.modelCalls);
      context.note({ description, cacheHit: result.cache.hit, ...usage(result.modelCalls), ...(result.elements[0] ? { engine: result.elements[0].engine } : {}) });
      if (result.refusal) this.runner.log(result.refusal);
      const base = this.base(description, settings, options);
      return result.elements.map((located) => new Element(this.host, {
        ...base, located, cache: result.cache, similarity: result.similarity, notFound: null, debugScreenshot: null, aiResponse: located.aiResponse,
      }));
    }, description);
  }

  readText(element: Element): Promise<string> {
    return this.runner.run('readText', [element.description], async () => {
      const box = element.boundingBox;
      if (!box) throw new ElementNotFoundError(element.description, element.reason ?? `'${element.description}' was not found.`, null);
      return this.service.readText(this.session.requireSession(), box);
    });
  }

  assert(statement: string, options: AssertOptions | undefined): Promise<true> {
    const site = callSite();
    return this.runner.run('assert', [statement, options ?? {}], async (context) => {
      if (typeof statement !== 'string' || !statement.trim()) throw new InvalidOptionError('statement', `assert() needs a statement about the screen, e.g. 'the cart shows 2 items', got ${show(statement)}.`);
      const settings = resolveAssertOptions(options, this.options);
      const cacheOn = this.options.cache.enabled && settings.threshold !== -1;
      const result = await this.service.assert(this.session.requireSession(), {
        ...settings, statement, cacheKey: cacheOn ? settings.cacheKey ?? defaultCacheKey(site) : null,
      });
      this.emitUsage('assert', statement, result.modelCalls);
      context.note({ description: statement, engine: result.engine, cacheHit: result.cache.hit, ...usage(result.modelCalls) });
      if (!result.passed) throw new AssertionError(statement, result.reason);
      return true as const;
    }, statement);
  }

  /** One `ai:usage` event per model call: tokens and latency, never the answer or a key. */
  private emitUsage(command: AiUsageEvent['command'], description: string, calls: ModelCall[]): void {
    for (const { answer: _answer, ...call } of calls) {
      const event: AiUsageEvent = { command, description, ...call };
      this.runner.emitter.emit('ai:usage', event);
    }
  }

  private settings(description: string, options: unknown, kind: 'find' | 'findAll'): ResolvedFindOptions {
    if (typeof description !== 'string' || !description.trim()) {
      throw new InvalidOptionError('description', `${kind}() needs a description of the element, e.g. 'the Submit button', got ${show(description)}.`);
    }
    return resolveFindOptions(options, kind, this.options);
  }

  private request(description: string, settings: ResolvedFindOptions, site: CallSite | null): LocateRequest {
    const cacheOn = this.options.cache.enabled && settings.cacheThreshold !== -1;
    return { ...settings, description, cacheKey: cacheOn ? settings.cacheKey ?? defaultCacheKey(site) : null };
  }

  private base(description: string, settings: ResolvedFindOptions, options: unknown): Pick<ElementDetails, 'description' | 'threshold' | 'findOptions'> {
    return {
      description,
      threshold: settings.cacheThreshold,
      findOptions: typeof options === 'number' ? { cacheThreshold: options } : { ...(options as object) },
    };
  }

  private element(description: string, result: LocateResult, settings: ResolvedFindOptions, options: unknown): Element {
    return new Element(this.host, {
      ...this.base(description, settings, options),
      located: result.element, cache: result.cache, similarity: result.similarity, notFound: result.notFound, debugScreenshot: result.debugScreenshot,
      aiResponse: result.aiResponse,
    });
  }
}

/** What a command's model calls cost, for its usage record. */
function usage(calls: ModelCall[]): { modelCalls: number; modelTokens: number } {
  return { modelCalls: calls.length, modelTokens: calls.reduce((sum, call) => sum + call.totalTokens, 0) };
}
