import { Box, bottom, centerX, centerY, contains, distanceTo, pad, readingOrder } from '../geometry';
import { Candidate, Capability, EngineContext, LocateEngine, Screen, ScreenMoved, Verdict } from '../engine';
import { Query, roleWordInside, withWholeText } from '../query';
import { analyse, Analysis, SeenScreens, findText, Line, groupLines, keepsQuotes, keepsSymbols, phrases, rereadLine, STANDALONE_BONUS, suspectLines, TextMatch } from './analysis';
import {
  badgeLike, COMPACT_RATIO, faceAround, fieldNear, holdsOtherWords, holdsWordsBeside, inputLike, labelsShare, offCentre, overWord, ownFace,
  TEXT_AREA_HEIGHT, toggleNear, valueBelow,
} from './controls';
import { punctuationExact, sameLetters, similarity, threshold } from '../text-match';
import { inPlace, relate, standsIn } from '../relations';
import { cropGrey, prepareForOcr } from './preprocess';
import { endPreparation } from './prepare-thread';
import { cropScreen } from '../../image/crop';
import { OcrReader, OcrWord } from './tesseract';
import { PaddleModels, TextLine } from './paddle';
import { OcrReaderChoice, ocrReaderFromEnv } from '../../config/locators';
import { detectorLooked, LineReader, readAllLines, readGaps } from './gaps';
import { readRinged } from './ringed';
import { controlInGroup, groupFrame } from './groups';

/**
 * The offline engine: reads the screen's text and turns a description into
 * the box of the control it names. It only answers what text can answer:
 * a description without readable text is refused, never guessed.
 */
/** How many of the nearest texts a not-found message names. */
const SEEN_INSTEAD = 4;
/** How sure OCR must be of a word for readBox to report it (tesseract scores clean text above 85). */
const CLEAR_READ = 75;

/** A match this similar, standing alone, needs no second look: 'I am inactive' inside 'I am inactive but checked' does. */
const CLEAN_MATCH = 0.97;

/** How far below the best match a candidate may score and still count for findAll and ordinals. */
const PEER_MARGIN = 0.2;

/** Texts this short (a page number, a badge's count, a symbol) are looked for inside rings too. */
const RINGED_TEXT = 4;
/** A label with its badge's count ('Inbox 3', 'Item 2'): the count may stand on a disc of its own. */
const ENDS_IN_COUNT = /\S\s+\d{1,3}$/;

/** How sure the reading of a ring's glyph must be to count. */
const RING_SURE = 60;

/** Lines this like the text looked for (and at most this many) are read by the second reader when tesseract's closer look finds nothing. */
const SECOND_READER_SIMILARITY = 0.6;
const SECOND_READER_LINES = 3;

/**
 * How well a button or a checkbox fits whose label holds the text asked for
 * inside a longer one ('I am inactive' in 'I am inactive but still checked'),
 * against 1 for one labelled just that, and 0.85 for words with no button round them.
 */
const PART_OF_LABEL = 0.9;

/** How well words fit a badge asked for when no small face of their own holds them. */
const NO_BADGE_FACE = 0.9;

/** The tallest an input wider than a button's face is, in heights of its text: a large input's 48 px round 17 px text. */
const WIDE_INPUT_HEIGHT = 3.2;

/** Controls whose label is their whole text (a tab named 'Security' is not the words 'Security alerts'). */
const WHOLE_LABEL_ROLES = ['tab', 'menuitem'];

export class OcrEngine implements LocateEngine {
  readonly name = 'ocr';
  readonly capabilities: readonly Capability[] = ['text', 'label', 'readText', 'assert'];
  private ocr: OcrReader | null = null;
  private paddle: PaddleModels | null = null;
  /** Candidates for a field that are only its text: no input was seen round or beside it. */
  private readonly fieldUnseen = new WeakSet<Candidate>();
  /** The last few screens read, by their pixels: one captured again unchanged is not read again. */
  private readonly seen = new SeenScreens();

  constructor(readonly readerChoice: OcrReaderChoice = ocrReaderFromEnv()) {}

  private get models(): PaddleModels {
    this.paddle ??= new PaddleModels();
    return this.paddle;
  }

  /** The tesseract workers start on first read and stay warm until stop(). */
  private get reader(): OcrReader {
    this.ocr ??= new OcrReader();
    return this.ocr;
  }

  /** A tesseract worker (readBox uses one whichever reader reads screens); the second reader's models stay on demand. */
  warm(): Promise<void> {
    return this.reader.warm();
  }

  async stop(): Promise<void> {
    const [reader, models] = [this.ocr, this.paddle];
    this.ocr = null;
    this.paddle = null;
    await Promise.all([reader?.stop(), models?.stop(), endPreparation()]);
  }

  /** Forgets every text band read so far (benchmarks use it to measure a screen never seen). */
  forget(): void {
    this.ocr?.forget();
    this.paddle?.forget();
    this.seen.forget();
  }

  /** The screen read until the find's deadline, or until it has moved: a screen full of text is read in part, and read on at the next look. */
  private analyse({ screen, deadline, stale }: EngineContext): Promise<Analysis> {
    if (this.readerChoice === 'paddle') return analyse(screen, (shown, _, until) => readAllLines(shown, this.models, until, stale?.signal), deadline, this.seen);
    return analyse(screen, (_, prepared, until, pieces) => this.reader.read(prepared, until, stale?.signal, pieces), deadline, this.seen);
  }

  async locate(context: EngineContext, asked: Query, options: { all?: boolean } = {}): Promise<Candidate[]> {
    const analysis = await this.analyse(context);
    const texts = [asked.text, asked.wholeText, asked.relation?.anchor, asked.column].filter((t): t is string => !!t);
    const shortest = texts.length ? Math.min(...texts.map((t) => t.length)) : 0;
    const readLines = analysis.gapsRead ? null : this.gapReader(analysis);
    // A second look: the detector's lines the first read missed, and for a short text or a label with its count, the glyphs inside rings.
    const ringsToRead = shortest > 0 && (shortest <= RINGED_TEXT || texts.some((t) => ENDS_IN_COUNT.test(t.trim()))) && !analysis.ringsRead;
    const secondLook = !!readLines || ringsToRead;
    // Lines read again closer up (the costlier check) wait for the second look, when there is one.
    const found = await this.locateIn(analysis, context, asked, options, !secondLook);
    if (!secondLook) return found;
    // The second look costs more than the first: not on a screen that is gone (the find has left this look).
    if (context.stale?.signal.aborted) throw new ScreenMoved();
    // Nothing found, only part of a longer phrase, none where the description says, or copies to count
    // for an ordinal or to weigh for a badge (its digits on a small disc the first read missed, where a
    // page number shows the same): a line tesseract missed may hold it. (findAll keeps what the first
    // read found: a second look at every findAll would double its time.)
    const misplaced = !!asked.place && !context.crop && !found.some((c) => standsIn(c.box, asked.place!, context.screen));
    const partial = () => asked.text !== null && !findText(analysis.lines, asked.text).some((m) => m.standalone && m.score >= CLEAN_MATCH);
    // A field whose best match shows outside any input (a code sample's placeholder="Default"), or labels a group whose
    // inputs were not read: its faint placeholder, or the group's faint rows, may be the missed lines.
    const noField = !found.length || this.fieldUnseen.has(found[0]);
    if (found.length && !misplaced && asked.ordinal === null && !asked.badge && !noField && !partial()) return found;
    if (readLines) await readGaps(analysis, context.screen, this.models, readLines, context.deadline, shortest, context.stale?.signal);
    if (ringsToRead) await this.readRings(analysis, context.deadline);
    return this.locateIn(analysis, context, asked, options, true);
  }

  /**
   * A page number or a badge's digits in a ring: read once per screen, when a
   * find for a short text comes up short. A ring's reading replaces what the
   * first reads made of it.
   */
  private async readRings(analysis: Analysis, deadline: number): Promise<void> {
    if (analysis.ringsRead || Date.now() >= deadline) return;
    const words = await readRinged(analysis.grey, this.reader, deadline);
    // Read in part: the next look reads them again.
    if (Date.now() >= deadline) return;
    analysis.ringsRead = true;
    const before = analysis.lines.flatMap((l) => l.words);
    const inside = (ring: OcrWord) => before.filter((w) => contains(ring, centerX(w), centerY(w)));
    // A ring keeps what was read in it before when that was read more surely (a button's label tesseract read well).
    // An icon in a circle reads as a stray letter, unsurely: only sure readings count.
    // A ring that reads what was already read in it keeps the first read's tight box (a spin box's '50' stays a
    // value shown inside a field, not a face of its own), but that text is now known to stand alone in its ring
    // (a tab's '3' badge is no part of the words before it).
    const sameAsBefore = (ring: OcrWord) => inside(ring).map((w) => w.text).join('') === ring.text;
    const better = words.filter((ring) => ring.confidence >= Math.max(RING_SURE, ...inside(ring).map((w) => w.confidence)) && !sameAsBefore(ring));
    const confirmed = words.filter((ring) => ring.confidence >= RING_SURE && sameAsBefore(ring));
    if (!better.length && !confirmed.length) return;
    // Two reads that agree are as sure as the surer one.
    const confirming = (w: OcrWord) => confirmed.find((ring) => contains(ring, centerX(w), centerY(w)));
    const kept = before.filter((w) => !better.some((ring) => contains(ring, centerX(w), centerY(w))))
      .map((w) => { const ring = confirming(w); return ring ? { ...w, enclosed: true, confidence: Math.max(w.confidence, ring.confidence) } : w; });
    analysis.lines = groupLines([...kept, ...better]);
  }

  /** How the detector's missed lines are read: by PaddleOCR's recogniser, or by tesseract one line at a time. */
  private gapReader(analysis: Analysis): LineReader | null {
    if (this.readerChoice === 'tesseract+paddle') return (screen, lines, deadline, gone) => this.models.recognise(screen, lines, deadline, gone);
    if (this.readerChoice !== 'tesseract+detector') return null;
    return async (_, lines, deadline) => {
      const read: OcrWord[][] = [];
      for (const line of lines) read.push(Date.now() < deadline ? await rereadLine(analysis.prepared, line, this.reader) : []);
      return read;
    };
  }

  private async locateIn(analysis: Analysis, context: EngineContext, asked: Query, options: { all?: boolean }, reread: boolean): Promise<Candidate[]> {
    // "First name field", "ORANGE 5 button": if the whole text is on the screen, its ordinal or colour word belongs to it;
    // "Div as Select": its role word too, where the screen shows that text as a phrase of its own (not 'Click the Save button').
    const whole = asked.wholeText ? findText(analysis.lines, asked.wholeText) : [];
    const wholeShown = roleWordInside(asked) ? whole.some((m) => m.standalone && (m.score >= CLEAN_MATCH || sameLetters(m.text, asked.wholeText!))) : whole.length > 0;
    const query = wholeShown ? withWholeText(asked) : asked;
    if (query.text === null && !query.relation && !query.column) return [];
    const deadline = reread ? context.deadline : 0;
    const anchor = query.relation ? await this.bestMatch(analysis, context.screen, query.relation.anchor, deadline) : null;
    if (query.relation && !anchor) return [];
    const header = query.column ? await this.bestMatch(analysis, context.screen, query.column, deadline) : null;
    if (query.column && !header) return [];
    // Without a text of its own, the element is found from where it stands: the anchor, else under the column's header.
    const near = anchor ?? header;
    const kind = query.relation?.kind ?? 'below';

    let candidates: Candidate[];
    if (query.text === null && (query.role === 'field' || query.role === 'dropdown')) {
      // "the field below 'Email address'": the control is found from the anchor alone.
      const direction = kind === 'below' ? 'below' : kind === 'right-of' ? 'right' : 'auto';
      const face = fieldNear(analysis.grey, near!.box, direction);
      candidates = face ? [this.candidate(face, near!, `the input ${kind} '${near!.text}'`, 1)] : [];
    } else if (query.text === null) {
      // "the button right of 'Export'": whatever text stands there, as the control it belongs to.
      candidates = phrases(analysis.lines, near!.box).map((p) => this.toControl(analysis, p, query)).filter((c): c is Candidate => c !== null);
      if (query.role === 'button') candidates = candidates.filter((c) => /control around/.test(c.reason));
    } else {
      const everyCopy = query.ordinal !== null || Boolean(options.all);
      let matches = findText(analysis.lines, query.text, { everyCopy });
      if (!matches.length) matches = await this.reread(analysis, context.screen, query.text, deadline, [], everyCopy);
      // An ordinal counts copies: one misread by a letter or two ('isc' for 'MISC') is read again closer up.
      else if (query.ordinal !== null) matches = [...matches, ...(await this.reread(analysis, context.screen, query.text, deadline, matches, everyCopy))];
      // A tab or a menu item is a whole label; in a bar, one set apart from its neighbours is as whole as a phrase.
      if (query.role && WHOLE_LABEL_ROLES.includes(query.role)) matches = matches.filter((m) => m.setApart).map((m) => (m.standalone ? m : { ...m, score: Math.min(1, m.score + STANDALONE_BONUS) }));
      candidates = matches.map((m) => this.toControl(analysis, m, query)).filter((c): c is Candidate => c !== null);
    }
    if (header) candidates = candidates.filter((c) => underColumn(c.box, header.box));
    // A zoomed crop is not the screen: its top is not the top bar.
    if (!context.crop) candidates = inPlace(candidates, query.place, context.screen);
    if (anchor && query.relation) candidates = relate(candidates, anchor.box, query.relation.kind);
    else if (header && query.text === null) candidates = relate(candidates, header.box, 'below');

    const peers = copiesCounted(candidates, query.text);
    if (options.all) return peers;
    if (query.ordinal !== null) {
      const pick = query.ordinal === -1 ? peers[peers.length - 1] : peers[query.ordinal - 1];
      return pick ? [pick, ...candidates.filter((c) => c !== pick)] : [];
    }
    if (query.relation) return candidates;
    // Two that match alike: the one spelled as asked, punctuation and all ('Email' over 'Email:'), then reading order.
    const spelledAsAsked = (c: Candidate) => (query.text !== null && punctuationExact(c.text ?? '', query.text) ? 1 : 0);
    return [...candidates].sort((a, b) => b.confidence - a.confidence || spelledAsAsked(b) - spelledAsAsked(a) || a.box.y - b.box.y || a.box.x - b.box.x);
  }

  /** Verify: read the evidence again, closer up and as one line, and compare it with the description. */
  async verify(context: EngineContext, candidate: Candidate, query: Query): Promise<Verdict> {
    const wanted = query.text ?? query.relation?.anchor;
    if (!wanted) return { ok: false, confidence: 0, reason: 'nothing to read back' };
    const analysis = await this.analyse(context);
    const evidence = candidate.evidence ?? candidate.box;
    const words = await rereadLine(analysis.prepared, evidence, this.reader);
    const read = words.map((w) => w.text).join(' ');
    const score = Math.max(similarity(read, wanted), ...words.map((w) => similarity(w.text, wanted)));
    const ok = score >= threshold(wanted) || normalisedIncludes(read, wanted);
    return { ok, confidence: score, reason: `re-read '${read}' at ${evidence.x},${evidence.y} (similarity ${score.toFixed(2)})` };
  }

  async seenInstead(context: EngineContext, query: Query): Promise<string[]> {
    const wanted = query.text ?? query.relation?.anchor ?? '';
    const analysis = await this.analyse(context); // memoised: the screen was just read
    return phrases(analysis.lines)
      .filter((p) => /\p{L}{2}/u.test(p.text))
      .map((p) => ({ text: p.text, score: similarity(p.text, wanted) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, SEEN_INSTEAD)
      .map((p) => p.text);
  }

  /** The phrases within `radius` px of the point, nearest first (0 for one under it). */
  async textsNear(context: EngineContext, point: { x: number; y: number }, radius: number): Promise<{ text: string; box: Box }[]> {
    const analysis = await this.analyse(context);
    const reach = (box: Box) => distanceTo(box, point.x, point.y);
    return phrases(analysis.lines).filter((p) => /[\p{L}\p{N}]/u.test(p.text) && reach(p.box) <= radius)
      .sort((a, b) => reach(a.box) - reach(b.box)).map((p) => ({ text: p.text, box: p.box }));
  }

  /** Reads a box of the screen as one line (PSM 7), at twice the size. */
  async readText(context: EngineContext, box: Box): Promise<string> {
    const analysis = await this.analyse(context);
    const words = await this.reader.readCrop(cropGrey(analysis.prepared, box, 2), '7');
    return words.map((w) => w.text).join(' ');
  }

  /** Reads only the box, prepared on its own and read as one line: about a tenth of a full-screen read. */
  async readBox({ screen }: EngineContext, box: Box): Promise<string | null> {
    const region = pad(box, 3, screen);
    const crop = cropScreen(screen, region, 1);
    const prepared = prepareForOcr({ width: crop.width, height: crop.height, data: crop.data }, screen.format);
    const words = await this.reader.readCrop(cropGrey(prepared, { x: 0, y: 0, width: prepared.width, height: prepared.height }, 2), '7');
    // Only words read clearly: this reading can overrule an exact engine, so a logo or a half-hidden line must not.
    const text = words.filter((w) => w.confidence >= CLEAR_READ).map((w) => w.text).join(' ');
    return /[\p{L}\p{N}]/u.test(text) ? text : null;
  }

  private async bestMatch(analysis: Analysis, screen: Screen, text: string, deadline: number): Promise<TextMatch | null> {
    const found = findText(analysis.lines, text);
    return found[0] ?? (await this.reread(analysis, screen, text, deadline))[0] ?? null;
  }

  /**
   * The lines where the text may have been misread, read again at twice the
   * size, as long as the find has time; lines holding a copy already `found`
   * are left out, and so is what they hold. Tesseract tends to repeat its
   * own slip closer up ('Tao' for a large 'Tab'): where that finds nothing,
   * the lines most like the text are read by PaddleOCR's recogniser too.
   */
  private async reread(analysis: Analysis, screen: Screen, wanted: string, deadline: number, found: TextMatch[] = [], everyCopy = false): Promise<TextMatch[]> {
    if (Date.now() >= deadline) return [];
    const holdsFound = (line: Line) => line.words.some((w) => found.some((m) => contains(m.box, centerX(w), centerY(w))));
    const lines = analysis.lines.filter((line) => !holdsFound(line));
    const isNew = (m: TextMatch) => !found.some((f) => contains(f.box, centerX(m.box), centerY(m.box)));
    // Asked for together, so that both workers read; each waits its turn and gives up at the deadline.
    const reread = await Promise.all(suspectLines(lines, wanted, { unsure: !detectorLooked(analysis) }).map((box) => rereadLine(analysis.prepared, box, this.reader, deadline)));
    const matches = findText(groupLines(reread.flat()), wanted, { everyCopy }).filter(isNew);
    // Only for a text found nowhere: a second reader's slips must not add copies to count.
    if (matches.length || found.length || this.readerChoice !== 'tesseract+paddle' || Date.now() >= deadline) return matches;
    const closest = suspectLines(lines, wanted, { unsure: false, least: SECOND_READER_SIMILARITY }, SECOND_READER_LINES);
    const read = await this.models.recognise(screen, closest.map(asDetectedLine), deadline);
    return findText(groupLines(read.flat()), wanted).filter(isNew);
  }

  /** From where the text was read to the box of the control the description means. */
  private toControl(analysis: Analysis, match: TextMatch, query: Query): Candidate | null {
    const { grey } = analysis;
    // An enclosure with other words in it is a container (a menu, a card), not this text's control.
    // A face is centred on its label; an area the text merely sits in (the bottom of a card) is not its control.
    const faceOf = (found: Box | null) => found && !holdsOtherWords(analysis, found, match.box) && Math.abs(centerY(found) - centerY(match.box)) <= found.height * 0.25 ? found : null;
    const found = faceAround(grey, match.box);
    const face = faceOf(found);
    switch (query.role) {
      case 'field':
      case 'dropdown': {
        // An input may span a whole form (600 px and more at 1920 wide), further from its placeholder than a button's face
        // reaches; as wide a face that stands well above and below its text is a bar (a navbar round a borderless search).
        const wide = face || found ? null : faceOf(faceAround(grey, match.box, grey.width));
        const input = face ?? (wide && wide.height <= match.box.height * WIDE_INPUT_HEIGHT ? wide : null);
        // An input showing more than the text (a tab 'Style Sheets' for "the Style dropdown") fits less than a label of just that.
        if (inputLike(input, COMPACT_RATIO)) return this.candidate(input, match, `'${match.text}' is shown inside an input`, match.standalone ? 1 : PART_OF_LABEL);
        // A text area, and a select showing several rows (a list box), may be taller than an input.
        // (An input's height first: a wider window lets a dark select's flood leak into the card round it.)
        const tall = query.textArea || query.role === 'dropdown';
        // A value shown in a control is inside it, or beside its own label: never over another input, which would be the next row's.
        const near = (tallest?: number) => fieldNear(grey, match.box, query.shown ? 'right' : 'auto', tallest, query.shown);
        const field = near() ?? (tall ? near(TEXT_AREA_HEIGHT) : null);
        const frame = query.shown ? null : groupFrame(analysis, match.box, field);
        const grouped = frame && controlInGroup(analysis, frame);
        if (grouped) return this.candidate(grouped, match, `the first input in the group under '${match.text}'`, 1);
        if (field) {
          const labelled = this.candidate(field, match, `the input labelled '${match.text}'`, 1);
          // A group's frame with no input read in it: its faint (disabled) rows may be lines the first read missed.
          if (frame === field) this.fieldUnseen.add(labelled);
          return labelled;
        }
        // An underlined field (Material's, a text area drawn with only a bottom line) shows its value just under its label.
        const value = query.shown ? null : valueBelow(analysis, match);
        if (value) return this.candidate(pad(value.box, 4, grey), match, `the value '${value.text}' shown under the label '${match.text}' (no input border seen)`, 0.8);
        // A text area asked for as a field ("the Message field"), where no input stands by its label and none shows a value.
        const area = tall ? null : near(TEXT_AREA_HEIGHT);
        if (area) return this.candidate(area, match, `the text area labelled '${match.text}'`, 1);
        // A borderless input (a search bar in a navbar) shows nothing but its placeholder: clicking that text focuses it.
        const bare = this.candidate(pad(match.box, 2, grey), match, `the text '${match.text}' (no input border seen around or beside it)`, 0.75);
        this.fieldUnseen.add(bare);
        return bare;
      }
      case 'checkbox':
      case 'radio': {
        // The ink left of the label is no box when it is the end of a word ('Disabled radio is off').
        const near = toggleNear(grey, match.box);
        const toggle = near && !overWord(analysis, near, match.box) ? near : null;
        return toggle
          ? this.candidate(toggle, match, `the ${query.role} beside '${match.text}'`, match.standalone ? 1 : PART_OF_LABEL)
          : this.candidate(pad(match.box, 2, grey), match, `the label '${match.text}' (no ${query.role} box seen beside it)`, 0.8);
      }
      case 'button':
      case 'tab':
      case 'menuitem':
      case null:
        if (face) {
          const share = labelsShare(analysis, face, match.box);
          // A button asked for by part of what it shows ('link' in 'Separated link') fits less than one that shows just that.
          const fit = query.role === 'button' && !match.standalone ? PART_OF_LABEL : 1;
          // A label far off its face's middle (a bar's brand, the first words of a wide row) is clicked on itself.
          if (offCentre(share, match.box)) return this.candidate({ x: match.box.x - 4, y: share.y, width: match.box.width + 8, height: share.height }, match, `'${match.text}' in the control around it`, fit);
          return this.candidate(share, match, `the control around '${match.text}'`, fit);
        }
        return this.candidate(pad(match.box, 4, grey), match, `the text '${match.text}'`, query.role === 'button' ? 0.85 : 1);
      default:
        if (query.badge) {
          // A badge is a text on a small face of its own: the same words in a sentence or a caption fit less.
          const ringed = analysis.lines.some((line) => line.words.some((w) => w.enclosed && contains(w, centerX(match.box), centerY(match.box))));
          // Inside a face that holds words beside it (a button labelled 'Alerts 3'), the text is part of a label, however snug the face.
          const inLabel = !!found && holdsWordsBeside(analysis, found, match.box);
          const onFace = ringed || (!inLabel && ((!!face && badgeLike(face, match.box)) || ownFace(grey, match.box)));
          return onFace
            ? this.candidate(pad(match.box, 2, grey), match, `the badge '${match.text}'`, 1)
            : this.candidate(pad(match.box, 2, grey), match, `the text '${match.text}' (no badge face round it)`, NO_BADGE_FACE);
        }
        return this.candidate(pad(match.box, 2, grey), match, `the text '${match.text}'`, 1);
    }
  }

  private candidate(box: Box, match: TextMatch, reason: string, roleFit: number): Candidate {
    const ocr = 0.85 + 0.15 * Math.min(1, match.ocrConfidence / 90);
    return {
      box: { x: Math.round(box.x), y: Math.round(box.y), width: Math.round(box.width), height: Math.round(box.height) },
      text: match.text, confidence: Math.round(match.score * ocr * roleFit * 1000) / 1000, engine: this.name,
      reason: `${reason} (read '${match.text}', similarity ${match.score.toFixed(2)})`, evidence: match.box,
    };
  }
}

/** A line tesseract read, boxed as the text detector boxes lines for the recogniser: grown by about a third of its height each side. */
function asDetectedLine(box: Box): TextLine {
  const grow = box.height * 0.3;
  return { x: Math.max(0, box.x - grow), y: Math.max(0, box.y - grow), width: box.width + 2 * grow, height: box.height + 2 * grow, score: 1 };
}

/**
 * The candidates findAll and ordinals count: those about as good as the best
 * one, in reading order (with five 'Remove' buttons on screen, the word
 * 'removed' in a notice is no sixth). With 'Sales:' asked for, the copies read
 * with the colon are the ones counted: the column label 'Sales' is another text;
 * with '"tab-item"', the quoted ones.
 */
export function copiesCounted(candidates: Candidate[], wanted: string | null): Candidate[] {
  const best = Math.max(0, ...candidates.map((c) => c.confidence));
  const peers = readingOrder(candidates.filter((c) => c.confidence >= best - PEER_MARGIN));
  const withSymbols = wanted ? peers.filter((c) => keepsSymbols(c.text ?? '', wanted) && keepsQuotes(c.text ?? '', wanted)) : [];
  return withSymbols.length ? withSymbols : peers;
}

/** Below a column's header and about as far across: cells align left, right or centred under it. */
function underColumn(box: Box, header: Box): boolean {
  return box.y >= bottom(header) - 4 && Math.abs(centerX(box) - centerX(header)) < Math.max(header.width, box.width) * 0.75;
}

function normalisedIncludes(read: string, wanted: string): boolean {
  return read.toLowerCase().replace(/\s+/g, ' ').includes(wanted.toLowerCase().trim());
}
