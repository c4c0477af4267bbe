import fs from 'fs';
import readline from 'readline';
import { loadScreen, OfflineLocator } from '../service/offline';
import { resolveVisionModel } from '../config/vision';
import { drawBoxes } from '../image/overlay';
import { encodePng } from '../image/pixels';
import { TypeHint } from '../locate/query';
import { located } from '../service/located';
import type { FindOutcome } from '../service/find';
import { Element } from '../client/element';
import { parseFlags } from './flags';
import { liveSandbox } from './live-sandbox';
import { LocatorChoice, LOCATORS } from '../config/locators';
import type { Screen } from '../types/screen';

const TYPES: TypeHint[] = ['text', 'image', 'ui', 'any'];

/**
 * `glance locate <screen.png> "<description>" [--type T] [--zoom] [--verify] [--json] [--overlay out.png]`
 * `glance locate "<description>" [--sandbox ID]`: on the screen of a running sandbox, with its accessibility tree.
 * `glance locate --batch <in.jsonl>`: lines of {id, screen, description} in, lines of results out.
 * `--engine auto|a11y|ocr|vision` picks the engines (default auto).
 */
export async function locateCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args, ['zoom', 'verify', 'json']);
  const type = (typeof flags.type === 'string' ? flags.type : 'any') as TypeHint;
  if (!TYPES.includes(type)) throw new Error(`--type takes one of ${TYPES.join(', ')}, got '${flags.type}'.`);
  const settings = { type, zoom: flags.zoom === true, verify: flags.verify === true };
  const engine = (typeof flags.engine === 'string' ? flags.engine : 'auto') as LocatorChoice;
  if (!LOCATORS.includes(engine)) throw new Error(`--engine takes one of ${LOCATORS.join(', ')}, got '${flags.engine}'.`);
  // One word is a description for the live sandbox; two are a screenshot file and a description.
  const live = !flags.batch && words.length === 1 ? liveSandbox(flags.sandbox) : null;
  const locator = new OfflineLocator(engine, resolveVisionModel(process.env), live?.agent ?? null);
  try {
    if (typeof flags.batch === 'string') return await batch(locator, flags.batch, settings);
    const [file, description] = live ? [null, words[0]] : words;
    if (!description) throw new Error('Usage: glance locate [<screen.png>] "<description>" [--sandbox ID] [--engine E] [--type T] [--zoom] [--verify] [--json] [--overlay out.png]');
    if (file && !fs.existsSync(file)) throw new Error(`No screenshot at '${file}'.`);
    const screen: Screen = live ? { ...(await live.agent.screenRaw()), format: 'bgrx' } : await loadScreen(file!);
    const outcome = await locator.locate(screen, description, settings);
    const element = offlineElement(outcome, description);
    if (flags.json) console.log(JSON.stringify(element, null, 2));
    else if (element.found()) console.log(`found '${element.text}' at ${element.x},${element.y} ${element.width}x${element.height}, click point ${element.centerX},${element.centerY}, confidence ${element.confidence}\n  ${element.reason}`);
    else console.log(`not found: ${outcome.rejection}`);
    if (typeof flags.overlay === 'string') {
      const others = (await locator.all(screen, description, type)).map((c) => ({ box: c.box, colour: [240, 190, 0] as [number, number, number] }));
      const chosen = outcome.candidate ? [{ box: outcome.candidate.box, colour: [0, 170, 60] as [number, number, number] }] : [];
      fs.writeFileSync(flags.overlay, await encodePng(drawBoxes(screen, [...others, ...chosen])));
      console.log(`overlay: ${flags.overlay} (green: the match, yellow: every candidate)`);
    }
    return element.found() ? 0 : 1;
  } finally {
    live?.agent.close();
    await locator.stop();
  }
}

/** An Element for a result located on a file; acting on it explains that there is no sandbox. */
function offlineElement(outcome: FindOutcome, description: string): Element {
  const noSandbox = async () => { throw new Error('This element was located on a screenshot file; there is no sandbox to act on.'); };
  return new Element({ pointerAt: noSandbox, find: noSandbox }, {
    description, located: outcome.candidate && outcome.screen ? located(outcome.candidate, outcome.screen) : null, threshold: -1,
    cache: { hit: false, strategy: 'miss', createdAt: new Date().toISOString(), diffPercent: null, imageUrl: null },
    similarity: null, notFound: outcome.candidate ? null : outcome.rejection, debugScreenshot: null, findOptions: {},
  });
}

/** One result line per input line; a line that fails reports its error, and the batch goes on. */
async function batch(locator: OfflineLocator, file: string, settings: { type: TypeHint; zoom: boolean; verify: boolean }): Promise<number> {
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  const screens = new Map<string, Awaited<ReturnType<typeof loadScreen>>>();
  let failed = 0;
  let number = 0;
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    number++;
    if (!line.trim()) continue;
    let id: unknown = null;
    try {
      const parsed = JSON.parse(line) as { id: unknown; screen: string; description: string };
      id = parsed.id ?? null;
      if (typeof parsed.screen !== 'string' || typeof parsed.description !== 'string') throw new Error('each line needs {"id", "screen": "<png path>", "description": "<text>"}');
      if (!screens.has(parsed.screen)) screens.set(parsed.screen, await loadScreen(parsed.screen));
      const outcome = await locator.locate(screens.get(parsed.screen)!, parsed.description, settings);
      const box = outcome.candidate?.box;
      process.stdout.write(`${JSON.stringify({
        id, found: !!box, x: box?.x ?? null, y: box?.y ?? null, width: box?.width ?? null, height: box?.height ?? null,
        centerX: box ? Math.round(box.x + box.width / 2) : null, centerY: box ? Math.round(box.y + box.height / 2) : null,
        confidence: outcome.candidate?.confidence ?? null,
      })}\n`);
    } catch (error) {
      failed++;
      process.stdout.write(`${JSON.stringify({ id, line: number, error: (error as Error).message })}\n`);
    }
  }
  return failed ? 1 : 0;
}
