import http from 'http';
import type { AddressInfo, Socket } from 'net';
import sharp from 'sharp';
import type { Box, Screen } from '../../lib/types/screen';
import type { FamilyName } from '../../lib/config/vision';
import { bgrxToRgba } from '../../lib/image/pixels';

/**
 * An OpenAI-compatible vision model for tests: it speaks the chat completions
 * protocol (image content parts as data URLs) to the real `openai` client, and
 * answers from ground truth rather than from weights. It knows the screen it
 * is shown (a scene: the screenshot, and the box of each description), works
 * out which part of it an image shows (the whole screen, resized or not, or a
 * zoom or verify crop), and answers in the convention of the family it plays,
 * with that family's quirks: its own resize, a 0-1000 grid, y before x, a
 * point where a box was asked for. It can be told to fail.
 */
export interface Scene {
  screen: Screen;
  /** Description (as the test writes it) → the boxes of the elements it means, in reading order. */
  targets: Record<string, Box[]>;
  /** Statements for assert() → whether they hold, and why. */
  facts?: Record<string, { verdict: boolean; reason: string }>;
}

export type Failure = 500 | 429 | 'timeout' | 'malformed' | 'not-found' | 'wrong-box';

export interface ReceivedRequest {
  model: string;
  authorization: string | null;
  temperature: number | undefined;
  top_p: number | undefined;
  top_k: number | undefined;
  max_tokens: number | undefined;
  text: string;
  images: { width: number; height: number }[];
  task: 'locate' | 'locate-all' | 'verify' | 'assert' | 'name';
  answer: string;
}

export interface VisionServerOptions {
  family: FamilyName;
  model?: string;
  /** When set, requests must carry it as a bearer token. */
  apiKey?: string;
  /** Milliseconds every answer takes, as a model's inference would. */
  latencyMs?: number;
  /** Answer a point where a box was asked for (the pixels and norm-1000 families). */
  pointForBox?: boolean;
}

/** The zoom and verify crops are 30% of the screen (interface spec 8). */
const CROP_SHARE = 0.3;
const COARSE = 4;

export class VisionServer {
  readonly requests: ReceivedRequest[] = [];
  /** Every chat completions request that arrived, refused ones included. */
  posts = 0;
  private server: http.Server | null = null;
  private readonly sockets = new Set<Socket>();
  private failures: Failure[] = [];
  private scene: (Scene & { grey: Grey; coarse: Grey }) | null = null;
  url = '';

  constructor(private options: VisionServerOptions) {}

  get model(): string {
    return this.options.model ?? `test-${this.options.family}`;
  }

  /** Plays another family (and model name) from now on. */
  play(options: Partial<VisionServerOptions>): void {
    this.options = { ...this.options, ...options };
  }

  /** The next requests fail this way, one failure each, in order. */
  fail(...failures: Failure[]): void {
    this.failures.push(...failures);
  }

  async show(scene: Scene): Promise<void> {
    const grey = await greyOf(scene.screen, scene.screen.width, scene.screen.height);
    const coarse = await greyOf(scene.screen, Math.round(scene.screen.width / COARSE), Math.round(scene.screen.height / COARSE));
    this.scene = { ...scene, grey, coarse };
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  /** The environment that points Glance at this server. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return { GLANCE_AI_BASE_URL: this.url, GLANCE_AI_MODEL: this.model, GLANCE_AI_API_KEY: this.options.apiKey ?? '', GLANCE_AI_FAMILY: this.options.family, ...extra };
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.method === 'GET' && req.url === '/v1/models') return send(200, { object: 'list', data: [{ id: this.model, object: 'model' }] });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return send(404, { error: { message: `no route ${req.method} ${req.url}` } });
      this.posts++;
      const authorization = req.headers.authorization ?? null;
      if (this.options.apiKey && authorization !== `Bearer ${this.options.apiKey}`) {
        // As hosted APIs do: the message echoes the ends of the key it was given.
        const given = (authorization ?? '').replace(/^Bearer /, '');
        return send(401, { error: { message: `Incorrect API key provided: ${given.slice(0, 6)}${'*'.repeat(12)}${given.slice(-4)}. You can find your API key in your account settings.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.model !== this.model) return send(404, { error: { message: `The model '${body.model}' does not exist`, type: 'invalid_request_error', code: 'model_not_found' } });
      const { text, images } = await readMessages(body.messages);
      const task = taskOf(text);
      const failure = this.failures.shift();
      const record = (answer: string) => this.requests.push({
        model: body.model, authorization, temperature: body.temperature, top_p: body.top_p, top_k: body.top_k, max_tokens: body.max_tokens,
        text, images: images.map((i) => ({ width: i.width, height: i.height })), task, answer,
      });
      if (failure === 500 || failure === 429) {
        record(`HTTP ${failure}`);
        return send(failure, { error: { message: failure === 429 ? 'Rate limit reached, slow down' : 'The server had an error' } }, failure === 429 ? { 'retry-after': '0' } : {});
      }
      if (failure === 'timeout') {
        record('(no answer)');
        return; // never answered: the client's timeout must end it (close() destroys the socket)
      }
      if (this.options.latencyMs) await new Promise((resolve) => setTimeout(resolve, this.options.latencyMs));
      const answer = failure === 'malformed' ? 'Sure! Let me take a look at the screenshot. It shows a user interface.' : await this.answer(task, text, images[0], failure);
      record(answer);
      send(200, {
        id: `chatcmpl-${this.requests.length}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 900 * images.length + Math.ceil(text.length / 4), completion_tokens: Math.ceil(answer.length / 4), total_tokens: 900 * images.length + Math.ceil(text.length / 4) + Math.ceil(answer.length / 4) },
      });
    } catch (error) {
      send(500, { error: { message: `test server: ${(error as Error).message}` } });
    }
  }

  private async answer(task: ReceivedRequest['task'], text: string, image: Image, failure: Failure | undefined): Promise<string> {
    const scene = this.scene;
    if (!scene) throw new Error('no scene shown: call show() first');
    if (task === 'assert') {
      const statement = Object.keys(scene.facts ?? {}).filter((s) => text.includes(`"${s.replace(/"/g, "'")}"`)).sort((a, b) => b.length - a.length)[0];
      const fact = statement ? scene.facts![statement] : { verdict: false, reason: 'I cannot tell that from the screenshot' };
      return JSON.stringify({ verdict: fact.verdict, reason: fact.reason });
    }
    // A description as the prompt quotes it; 'the', and quote marks inside, do not change what it names ("the 'gear icon'" is "gear icon").
    const plain = (d: string) => d.toLowerCase().replace(/['‘’]/g, '').replace(/^the\s+/, '').trim();
    const asked = [...text.matchAll(/"([^"]*)"/g)].map((m) => plain(m[1]));
    const description = Object.keys(scene.targets).filter((d) => asked.includes(plain(d.replace(/"/g, "'")))).sort((a, b) => b.length - a.length)[0];
    const region = await this.regionOf(image);
    const toImage = (b: Box): Box => ({
      x: ((b.x - region.x) * image.width) / region.width, y: ((b.y - region.y) * image.height) / region.height,
      width: (b.width * image.width) / region.width, height: (b.height * image.height) / region.height,
    });
    const markedCentre = (marker: Box) => ({ x: region.x + ((marker.x + marker.width / 2) * region.width) / image.width, y: region.y + ((marker.y + marker.height / 2) * region.height) / image.height });
    const holds = (b: Box, p: { x: number; y: number }) => p.x >= b.x && p.x < b.x + b.width && p.y >= b.y && p.y < b.y + b.height;
    if (task === 'name') {
      // The description whose element the marker's centre is on: what this model calls it.
      const marker = markerIn(image);
      const named = marker ? Object.keys(scene.targets).find((d) => scene.targets[d].some((b) => holds(b, markedCentre(marker)))) : undefined;
      return JSON.stringify({ name: named ?? 'unknown element' });
    }
    if (task === 'verify') {
      const marker = markerIn(image);
      if (!marker || !description) return JSON.stringify({ match: false, reason: marker ? 'that is not what was described' : 'I see no marked element' });
      const hit = scene.targets[description].some((b) => holds(b, markedCentre(marker)));
      return JSON.stringify({ match: hit, reason: hit ? `the marked element is ${description}` : `the marked element is something else, not ${description}` });
    }
    const inside = (b: Box) => b.x + b.width > region.x && b.y + b.height > region.y && b.x < region.x + region.width && b.y < region.y + region.height;
    let boxes = description && failure !== 'not-found' ? scene.targets[description].filter(inside) : [];
    if (failure === 'wrong-box' && boxes.length) {
      // Confidently wrong: the box moved well away from the element, as a model's slip would.
      boxes = boxes.map((b) => ({ ...b, x: b.x + 240 > region.x + region.width - b.width ? b.x - 240 : b.x + 240, y: b.y + 120 > region.y + region.height - b.height ? b.y - 120 : b.y + 120 }));
    }
    if (task === 'locate') boxes = boxes.slice(0, 1);
    return formatAnswer(this.options, boxes.map(toImage), image, description ?? 'that');
  }

  /** Which part of the scene an image shows: the whole screen (at any size), or a 30% crop found by its content. */
  private async regionOf(image: Image): Promise<Box> {
    const scene = this.scene!;
    const { width: W, height: H } = scene.screen;
    const whole = { x: 0, y: 0, width: W, height: H };
    const asWhole = await greyOf(image.screen, scene.coarse.width, scene.coarse.height);
    if (meanDifference(scene.coarse, asWhole, 0, 0) < 10) return whole;
    const size = { width: Math.round(W * CROP_SHARE), height: Math.round(H * CROP_SHARE) };
    const template = await greyOf(image.screen, Math.round(size.width / COARSE), Math.round(size.height / COARSE));
    let best = { x: 0, y: 0, score: Infinity };
    for (let y = 0; y + template.height <= scene.coarse.height; y++) {
      for (let x = 0; x + template.width <= scene.coarse.width; x++) {
        const score = meanDifference(scene.coarse, template, x, y, best.score);
        if (score < best.score) best = { x, y, score };
      }
    }
    const fine = await greyOf(image.screen, size.width, size.height);
    let refined = { x: best.x * COARSE, y: best.y * COARSE, score: Infinity };
    for (let y = Math.max(0, best.y * COARSE - COARSE); y <= Math.min(H - size.height, best.y * COARSE + COARSE); y++) {
      for (let x = Math.max(0, best.x * COARSE - COARSE); x <= Math.min(W - size.width, best.x * COARSE + COARSE); x++) {
        const score = meanDifference(scene.grey, fine, x, y, refined.score, 3);
        if (score < refined.score) refined = { x, y, score };
      }
    }
    return { x: refined.x, y: refined.y, ...size };
  }
}

interface Image {
  width: number;
  height: number;
  screen: Screen;
}

interface Grey {
  width: number;
  height: number;
  data: Buffer;
}

async function readMessages(messages: { role: string; content: unknown }[]): Promise<{ text: string; images: Image[] }> {
  const texts: string[] = [];
  const images: Image[] = [];
  for (const message of messages ?? []) {
    const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as { type: string; text?: string; image_url?: { url: string } }[]);
    for (const part of parts) {
      if (part.type === 'text') texts.push(part.text ?? '');
      if (part.type === 'image_url') {
        const match = /^data:image\/(png|jpeg|webp);base64,(.+)$/.exec(part.image_url?.url ?? '');
        if (!match) throw new Error('image_url must be a base64 data URL');
        const { data, info } = await sharp(Buffer.from(match[2], 'base64')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        images.push({ width: info.width, height: info.height, screen: { width: info.width, height: info.height, data, format: 'rgba' } });
      }
    }
  }
  if (!images.length) throw new Error('a grounding request needs an image content part');
  return { text: texts.join('\n'), images };
}

function taskOf(text: string): ReceivedRequest['task'] {
  if (/Name it as a tester would/i.test(text)) return 'name';
  if (/magenta rectangle/i.test(text)) return 'verify';
  if (/Is this statement about it true/i.test(text)) return 'assert';
  return /\bevery element\b/i.test(text) ? 'locate-all' : 'locate';
}

async function greyOf(screen: Screen, width: number, height: number): Promise<Grey> {
  const rgba = screen.format === 'rgba' ? screen.data : bgrxToRgba(screen.data);
  const data = await sharp(rgba, { raw: { width: screen.width, height: screen.height, channels: 4 } })
    .resize(width, height, { fit: 'fill', kernel: 'cubic' }).greyscale().raw().toBuffer();
  return { width, height, data: data.length === width * height ? data : pickChannel(data, width * height) };
}

function pickChannel(data: Buffer, pixels: number): Buffer {
  const step = data.length / pixels;
  const out = Buffer.allocUnsafe(pixels);
  for (let i = 0; i < pixels; i++) out[i] = data[i * step];
  return out;
}

/** Mean absolute grey difference of `template` placed at x, y on `image`, sampled every `step` pixels; stops early past `bound`. */
function meanDifference(image: Grey, template: Grey, x: number, y: number, bound = Infinity, step = 2): number {
  let sum = 0;
  let count = 0;
  const rows = Math.ceil(template.height / step);
  const perRow = Math.ceil(template.width / step);
  const limit = bound * rows * perRow;
  for (let ty = 0; ty < template.height; ty += step) {
    const iRow = (y + ty) * image.width + x;
    const tRow = ty * template.width;
    for (let tx = 0; tx < template.width; tx += step) {
      sum += Math.abs(image.data[iRow + tx] - template.data[tRow + tx]);
      count++;
    }
    if (sum > limit) return Infinity;
  }
  return sum / count;
}

/** The box of the magenta marker verify draws, in image pixels. */
function markerIn(image: Image): Box | null {
  const { data, width, height } = image.screen;
  let x1 = width;
  let y1 = height;
  let x2 = -1;
  let y2 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (data[i] > 220 && data[i + 1] < 50 && data[i + 2] > 220) {
        x1 = Math.min(x1, x); y1 = Math.min(y1, y); x2 = Math.max(x2, x); y2 = Math.max(y2, y);
      }
    }
  }
  return x2 < 0 ? null : { x: x1, y: y1, width: x2 - x1 + 1, height: y2 - y1 + 1 };
}

/** Qwen2.5-VL's processor resize, written out from its reference (factor 28). */
function qwenResize(width: number, height: number, maxPixels: number, minPixels: number): { width: number; height: number } {
  let h = Math.max(28, Math.round(height / 28) * 28);
  let w = Math.max(28, Math.round(width / 28) * 28);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.floor(height / beta / 28) * 28;
    w = Math.floor(width / beta / 28) * 28;
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / 28) * 28;
    w = Math.ceil((width * beta) / 28) * 28;
  }
  return { width: w, height: h };
}

/** Boxes (in pixels of the image received) written as the family writes them. */
function formatAnswer(options: VisionServerOptions, boxes: Box[], image: Image, description: string): string {
  const r = Math.round;
  const centre = (b: Box) => [b.x + b.width / 2, b.y + b.height / 2];
  const corners = (b: Box) => [b.x, b.y, b.x + b.width, b.y + b.height];
  const scaled = (values: number[], sx: number, sy: number) => values.map((v, i) => r(v * (i % 2 ? sy : sx)));
  const none = `I do not see ${description} on this screen; it shows other controls.`;
  switch (options.family) {
    case 'pixels':
      if (!boxes.length) return JSON.stringify({ found: false, reason: none });
      return options.pointForBox
        ? `The element is here: ${JSON.stringify({ points: boxes.map((b) => centre(b).map(r)) })}`
        : `Here is what I found:\n\`\`\`json\n${JSON.stringify({ found: true, boxes: boxes.map((b) => corners(b).map(r)) })}\n\`\`\``;
    case 'qwen2.5-vl': {
      if (!boxes.length) return JSON.stringify({ found: false, reason: none });
      const grid = qwenResize(image.width, image.height, 12_845_056, 3136);
      return `\`\`\`json\n${JSON.stringify(boxes.map((b) => ({ bbox_2d: scaled(corners(b), grid.width / image.width, grid.height / image.height), label: description })), null, 2)}\n\`\`\``;
    }
    case 'norm-1000': {
      if (!boxes.length) return `There is no such element. ${none}`;
      const norm = (b: Box) => scaled(options.pointForBox ? centre(b) : corners(b), 1000 / image.width, 1000 / image.height);
      return `The ${description} is located at: ${JSON.stringify(boxes.map((b) => ({ bbox_2d: norm(b) })))}`;
    }
    case 'gemini': {
      if (!boxes.length) return `\`\`\`json\n[]\n\`\`\`\n${none}`;
      const yx = (b: Box) => { const [x1, y1, x2, y2] = scaled(corners(b), 1000 / image.width, 1000 / image.height); return [y1, x1, y2, x2]; };
      return `\`\`\`json\n${JSON.stringify(boxes.map((b) => ({ box_2d: yx(b), label: description })))}\n\`\`\``;
    }
    case 'ui-tars-1.0':
    case 'ui-tars-1.5': {
      if (!boxes.length) return `Thought: ${none}\nAction: finished(content='${none.replace(/'/g, '')}')`;
      const grid = options.family === 'ui-tars-1.0' ? { width: 1000, height: 1000 } : qwenResize(image.width, image.height, 16384 * 28 * 28, 100 * 28 * 28);
      const point = (b: Box) => scaled(centre(b), grid.width / image.width, grid.height / image.height);
      const wrap = options.family === 'ui-tars-1.5' ? (p: number[]) => `<|box_start|>(${p.join(',')})<|box_end|>` : (p: number[]) => `(${p.join(',')})`;
      return `Thought: I can see ${description}; I will click it.\nAction: ${boxes.map((b) => `click(start_box='${wrap(point(b))}')`).join('\n\n')}`;
    }
  }
}
