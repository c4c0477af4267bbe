import fs from 'fs';
import readline from 'readline';
import { allCandidates, loadScreen, locateOnScreen, offlineElement } from '../locate/offline';
import { drawBoxes } from '../image/overlay';
import { encodePng } from '../image/pixels';
import { stopOcr } from '../locate/ocr/tesseract';
import { TypeHint } from '../locate/query';
import { parseFlags } from './main';

const TYPES: TypeHint[] = ['text', 'image', 'ui', 'any'];

/**
 * `glance locate <screen.png> "<description>" [--type T] [--zoom] [--verify] [--json] [--overlay out.png]`
 * `glance locate --batch <in.jsonl>`: lines of {id, screen, description} in, lines of results out.
 */
export async function locateCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args, ['zoom', 'verify', 'json']);
  const type = (typeof flags.type === 'string' ? flags.type : 'any') as TypeHint;
  if (!TYPES.includes(type)) throw new Error(`--type takes one of ${TYPES.join(', ')}, got '${flags.type}'.`);
  const settings = { type, zoom: flags.zoom === true, verify: flags.verify === true };
  try {
    if (typeof flags.batch === 'string') return await batch(flags.batch, settings);
    const [file, description] = words;
    if (!file || !description) throw new Error('Usage: glance locate <screen.png> "<description>" [--type T] [--zoom] [--verify] [--json] [--overlay out.png]');
    if (!fs.existsSync(file)) throw new Error(`No screenshot at '${file}'.`);
    const screen = await loadScreen(file);
    const outcome = await locateOnScreen(screen, description, settings);
    const element = offlineElement(outcome, description);
    if (flags.json) console.log(JSON.stringify(element, null, 2));
    else if (element.found()) console.log(`found '${element.text}' at ${element.x},${element.y} ${element.width}x${element.height}, click point ${element.centerX},${element.centerY}, confidence ${element.confidence}\n  ${element.reason}`);
    else console.log(`not found: ${outcome.rejection}`);
    if (typeof flags.overlay === 'string') {
      const others = (await allCandidates(screen, description, type)).map((c) => ({ box: c.box, colour: [240, 190, 0] as [number, number, number] }));
      const chosen = outcome.candidate ? [{ box: outcome.candidate.box, colour: [0, 170, 60] as [number, number, number] }] : [];
      fs.writeFileSync(flags.overlay, await encodePng(drawBoxes(screen, [...others, ...chosen])));
      console.log(`overlay: ${flags.overlay} (green: the match, yellow: every candidate)`);
    }
    return element.found() ? 0 : 1;
  } finally {
    await stopOcr();
  }
}

async function batch(file: string, settings: { type: TypeHint; zoom: boolean; verify: boolean }): Promise<number> {
  const input = file === '-' ? process.stdin : fs.createReadStream(file);
  const screens = new Map<string, Awaited<ReturnType<typeof loadScreen>>>();
  for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const { id, screen, description } = JSON.parse(line) as { id: unknown; screen: string; description: string };
    if (!screens.has(screen)) screens.set(screen, await loadScreen(screen));
    const outcome = await locateOnScreen(screens.get(screen)!, description, settings);
    const box = outcome.candidate?.box;
    process.stdout.write(`${JSON.stringify({
      id, found: !!box, x: box?.x ?? null, y: box?.y ?? null, width: box?.width ?? null, height: box?.height ?? null,
      centerX: box ? Math.round(box.x + box.width / 2) : null, centerY: box ? Math.round(box.y + box.height / 2) : null,
      confidence: outcome.candidate?.confidence ?? null,
    })}\n`);
  }
  return 0;
}
