import type OpenAI from 'openai';
import type { VisionModelSettings } from '../../config/vision';
import { VisionModelError } from '../../config/errors';
import type { ModelCall } from '../../types/locate';
import { sleep } from '../../util/wait';

/**
 * One conversation turn with the vision model over the OpenAI chat
 * completions protocol (the `openai` package), with Glance's retry policy:
 * HTTP 5xx, 429, timeouts, lost connections and answers that cannot be read
 * are retried with backoff; a bad key, an unknown model or a refused request
 * stop at once. The API key never appears in what this throws.
 */
export interface Sampling {
  temperature?: number;
  top_p?: number;
  /** Not in OpenAI's schema; vLLM, Ollama and others read it from the body. */
  top_k?: number;
}

export interface ChatRequest {
  purpose: ModelCall['purpose'];
  system?: string;
  text: string;
  /** PNG images, as data URLs. */
  images: string[];
  sampling: Sampling;
  maxTokens: number;
  /** Epoch ms after which no new try starts. */
  deadline: number;
}

export interface ChatAnswer<T> {
  value: T;
  call: ModelCall;
}

const BACKOFF_BASE_MS = 300;
const BACKOFF_CEILING_MS = 5_000;
const ANSWER_KEPT = 600;

/** A failed try that another try may mend. */
class Retriable extends Error {
  constructor(message: string, readonly retryAfterMs: number | null = null) {
    super(message);
  }
}

/** The openai package, loaded on first use: a run without a model never pays for loading it. */
let sdk: typeof OpenAI | null = null;
const library = (): typeof OpenAI => (sdk ??= (require('openai') as { default: typeof OpenAI }).default);

export class VisionClient {
  private client: OpenAI | null = null;

  constructor(readonly settings: VisionModelSettings) {}

  private get openai(): OpenAI {
    this.client ??= new (library())({
      baseURL: this.settings.baseURL,
      // Local servers (vLLM, Ollama) take any key; the client library needs one.
      apiKey: this.settings.apiKey || 'none',
      timeout: this.settings.timeoutMs,
      maxRetries: 0, // retries are Glance's: they also cover answers that cannot be read
      logLevel: 'off',
    });
    return this.client;
  }

  get where(): string {
    return `the vision model '${this.settings.model}' at ${safeUrl(this.settings.baseURL)}`;
  }

  /**
   * Asks once (retrying as above) and reads the answer with `read`; an
   * answer `read` returns null for counts as a failed try.
   */
  async ask<T>(request: ChatRequest, read: (answer: string) => T | null): Promise<ChatAnswer<T>> {
    const call: ModelCall = { model: this.settings.model, purpose: request.purpose, promptTokens: 0, completionTokens: 0, totalTokens: 0, latencyMs: 0, attempts: 0, answer: '' };
    const failures: string[] = [];
    for (;;) {
      call.attempts++;
      const started = performance.now();
      try {
        const response = await this.openai.chat.completions.create(this.body(request), { timeout: this.settings.timeoutMs });
        call.latencyMs += performance.now() - started;
        call.promptTokens += response.usage?.prompt_tokens ?? 0;
        call.completionTokens += response.usage?.completion_tokens ?? 0;
        call.totalTokens += response.usage?.total_tokens ?? 0;
        const answer = response.choices?.[0]?.message?.content ?? '';
        call.answer = this.redact(answer).slice(0, ANSWER_KEPT);
        const value = answer.trim() ? read(answer) : null;
        if (value === null) throw new Retriable(answer.trim() ? `an answer Glance could not read: ${JSON.stringify(call.answer.slice(0, 160))}` : 'an empty answer');
        call.latencyMs = Math.round(call.latencyMs * 10) / 10;
        return { value, call };
      } catch (error) {
        if (!(error instanceof Retriable)) call.latencyMs += performance.now() - started;
        const failure = this.classify(error);
        failures.push(failure.message);
        const wait = failure.retryAfterMs ?? Math.min(BACKOFF_CEILING_MS, BACKOFF_BASE_MS * 2 ** (call.attempts - 1)) * (0.75 + Math.random() * 0.5);
        const outOfTime = Date.now() + wait >= request.deadline;
        if (call.attempts > this.settings.retries || outOfTime) {
          const why = outOfTime && call.attempts <= this.settings.retries ? ' (no time left before the find\'s timeout)' : '';
          throw new VisionModelError(
            `${this.where} failed ${call.attempts} time(s)${why}: ${failures.join('; ')}. Check that the server runs and serves that model (GLANCE_AI_BASE_URL, GLANCE_AI_MODEL); GLANCE_AI_TIMEOUT and GLANCE_AI_RETRIES set the patience.`,
            false, statusOf(error));
        }
        await sleep(wait);
      }
    }
  }

  private body(request: ChatRequest): OpenAI.Chat.ChatCompletionCreateParamsNonStreaming {
    const content: OpenAI.Chat.ChatCompletionContentPart[] = [
      ...request.images.map((url): OpenAI.Chat.ChatCompletionContentPart => ({ type: 'image_url', image_url: { url, detail: 'high' } })),
      { type: 'text', text: request.text },
    ];
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
      { role: 'user', content },
    ];
    const { temperature, top_p, top_k } = request.sampling;
    return {
      model: this.settings.model,
      messages,
      max_tokens: request.maxTokens,
      ...(temperature !== undefined ? { temperature } : {}),
      ...(top_p !== undefined ? { top_p } : {}),
      // An extra body field: the library sends what it is given.
      ...(top_k !== undefined ? { top_k } : {}),
    } as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  }

  /** A try's failure as Glance tells it: fatal ones are thrown at once, the rest returned for a retry. */
  private classify(error: unknown): Retriable {
    if (error instanceof Retriable) return error;
    const OpenAI = library();
    if (error instanceof OpenAI.APIConnectionTimeoutError) return new Retriable(`no answer within ${this.settings.timeoutMs} ms (GLANCE_AI_TIMEOUT)`);
    if (error instanceof OpenAI.APIConnectionError) return new Retriable(`could not connect (${this.redact(error.message)})`);
    if (error instanceof OpenAI.APIError) {
      const status = error.status ?? 0;
      const said = this.redact(error.message ?? '').slice(0, 200);
      if (status === 401 || status === 403) {
        throw new VisionModelError(`${this.where} refused the API key (HTTP ${status}: ${said}). Set GLANCE_AI_API_KEY (or OPENAI_API_KEY) to a key that server accepts.`, true, status);
      }
      if (status === 404) {
        throw new VisionModelError(`${this.where} does not exist there (HTTP 404: ${said}). Check GLANCE_AI_MODEL against the models the server lists, and that GLANCE_AI_BASE_URL ends where its API begins (often '/v1').`, true, status);
      }
      if (status === 400 || status === 422) {
        throw new VisionModelError(`${this.where} refused the request (HTTP ${status}: ${said}). Is it a vision model (does it take images)? Check GLANCE_AI_MODEL.`, true, status);
      }
      const retryAfter = Number(error.headers?.get?.('retry-after'));
      return new Retriable(`HTTP ${status || 'error'}${said ? `: ${said}` : ''}`, Number.isFinite(retryAfter) && retryAfter >= 0 ? Math.min(retryAfter * 1000, BACKOFF_CEILING_MS) : null);
    }
    return new Retriable(this.redact((error as Error)?.message ?? String(error)));
  }

  /** Text from the server with the API key (whole, or the ends a server echoes of it) taken out. */
  redact(text: string): string {
    return redactKey(text, this.settings.apiKey);
  }
}

export function redactKey(text: string, key: string): string {
  if (!key || key.length < 4) return text;
  let out = text.split(key).join('****');
  if (key.length >= 12) {
    // "Incorrect API key provided: sk-abc1***********wxyz": a server may echo the key's ends.
    const head = escape(key.slice(0, 6));
    const tail = escape(key.slice(-4));
    out = out.replace(new RegExp(`\\S*${head}\\S*|\\S*\\*{3,}\\S*${tail}\\b`, 'g'), '****');
  }
  return out;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A URL without any user name or password in it. */
export function safeUrl(url: string): string {
  return url.replace(/\/\/[^/@\s]*@/, '//');
}

function statusOf(error: unknown): number | null {
  return error instanceof library().APIError ? error.status ?? null : null;
}
