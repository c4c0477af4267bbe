import { createHash } from 'crypto';
import { GreyImage, INK } from './preprocess';

/**
 * How a prepared screen is cut into pieces for tesseract to read: bands of
 * rows with ink, cut again at white rows between lines of text and at white
 * columns between columns of widgets, so that no piece holds more than a
 * share of the screen's ink; and how pieces are gathered into chunks of
 * about equal ink, each stacked into one image for one tesseract call.
 * (Tesseract's time follows the ink it reads, so equal ink keeps the workers
 * equally busy.) The screen's rows are looked at once, in one pass; columns
 * only where a piece needs cutting across.
 */
export interface Piece {
  y0: number;
  y1: number;
  /** The columns it spans: the whole width unless it was cut at white columns or narrowed to its marks. */
  x0: number;
  x1: number;
  /** Its inked pixels (darker than INK). */
  ink: number;
}

const BAND_PAD = 3;
/** Blank rows two bands are at least apart, and between pieces stacked into one image. */
export const BAND_GAP = 12;
/**
 * Inked pixels one tesseract call reads at most: a UI screen holds 15,000 to
 * 40,000, a page of small text over 200,000, which takes tesseract seconds.
 */
export const CHUNK_INK = 30_000;
/** Rows of a band too dense for one call, per slice: it is cut between its lines. */
const SLICE_ROWS = 120;
/**
 * Ink a piece may hold before it is cut at a white row (or column): a
 * screen's text falls into a handful of pieces, which the workers share evenly.
 */
export const PIECE_INK = 4_000;
/**
 * A row or column is blank when all of it is near white: between lines of
 * text, not through a word or a box's sides, and not through grey that
 * tesseract, which sets its own black level per image, might read as ink in
 * one piece and not in the other (a window's edge on a grey desktop read as '|').
 */
const BLANK = 235;
/** The fewest rows a piece has: a line of text with its margins. */
const PIECE_MIN_ROWS = 16;
/**
 * The fewest white columns a piece is cut at: wider than the space between
 * two words of a phrase, so that a phrase stays in one piece.
 */
const CUT_MIN_COLUMNS = 24;
/** White columns kept either side of a piece's marks: tesseract reads a word touching the image's edge less well. */
const SIDE_MARGIN = 8;

/**
 * Per line (row or column) of an image or a piece: its inked pixels, and the
 * first of its places that is not blank (-1 when all are).
 */
interface Profile {
  ink: Int32Array;
  first: Int32Array;
}

/** A row profile also keeps each row's last place that is not blank: a band is narrowed to its rows' marks. */
interface RowProfile extends Profile {
  last: Int32Array;
}

/** Each row of the whole image, in one pass. */
export function rowProfile(image: GreyImage): RowProfile {
  const { width, height, data } = image;
  const ink = new Int32Array(height), first = new Int32Array(height).fill(-1), last = new Int32Array(height).fill(-1);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let count = 0, lo = -1, hi = -1;
    for (let x = 0; x < width; x++) {
      const v = data[row + x];
      if (v < BLANK) {
        if (lo < 0) lo = x;
        hi = x;
        if (v < INK) count++;
      }
    }
    [ink[y], first[y], last[y]] = [count, lo, hi];
  }
  return { ink, first, last };
}

/** Each column of a piece (its first mark in rows of the image), in one pass over its rows. */
function columnProfile(image: GreyImage, piece: Piece): Profile {
  const width = piece.x1 - piece.x0;
  const ink = new Int32Array(width), first = new Int32Array(width).fill(-1);
  for (let y = piece.y0; y < piece.y1; y++) {
    const row = y * image.width + piece.x0;
    for (let x = 0; x < width; x++) {
      const v = image.data[row + x];
      if (v < BLANK) {
        if (first[x] < 0) first[x] = y;
        if (v < INK) ink[x]++;
      }
    }
  }
  return { ink, first };
}

const sum = (values: Int32Array, from: number, to: number) => values.subarray(from, to).reduce((a, b) => a + b, 0);

/** Runs of rows with ink, padded and merged when closer than BAND_GAP rows, across the whole width. */
export function findBands(image: GreyImage, rows = rowProfile(image)): Piece[] {
  const { width, height } = image;
  const bands: Piece[] = [];
  for (let y = 0; y < height; y++) {
    if (!rows.ink[y]) continue;
    let end = y;
    while (end + 1 < height && rows.ink[end + 1]) end++;
    const y0 = Math.max(0, y - BAND_PAD);
    const y1 = Math.min(height, end + 1 + BAND_PAD);
    const last = bands[bands.length - 1];
    if (last && y0 - last.y1 < BAND_GAP) last.y1 = y1;
    else bands.push({ y0, y1, x0: 0, x1: width, ink: 0 });
    y = end;
  }
  for (const band of bands) band.ink = sum(rows.ink, band.y0, band.y1);
  return bands;
}

/**
 * The screen's pieces for reading: its bands, cut where dense, then at white
 * rows, then at white columns, each narrowed to the columns it marks (plus a
 * margin).
 */
export function piecesOf(image: GreyImage): Piece[] {
  const rows = rowProfile(image);
  const pieces = cutAtBlankRows(image, cutDenseBands(image, findBands(image, rows), rows), rows);
  return cutAtBlankColumns(image, pieces.map((piece) => narrowed(piece, rows)));
}

/** A piece with its pixels' key: the same piece read before, wherever it stands, is not read again. */
export interface KeyedPiece extends Piece { key: string }

/** The screen's pieces (see piecesOf), each with its key. */
export function keyedPiecesOf(image: GreyImage): KeyedPiece[] {
  return piecesOf(image).map((piece) => ({ ...piece, key: pieceKey(image, piece) }));
}

/** A piece's pixels and the columns it stands in (its words keep their x on the screen): the same piece lower down reads the same. */
function pieceKey(image: GreyImage, piece: Piece): string {
  const hash = createHash('sha1');
  for (let y = piece.y0; y < piece.y1; y++) hash.update(image.data.subarray(y * image.width + piece.x0, y * image.width + piece.x1));
  return hash.update(`${image.width} ${piece.x0} ${piece.x1}`).digest('base64');
}

/** A full-width piece narrowed to the columns its rows mark, plus SIDE_MARGIN. */
function narrowed(piece: Piece, rows: RowProfile): Piece {
  let first = piece.x1, last = -1;
  for (let y = piece.y0; y < piece.y1; y++) {
    if (rows.first[y] < 0) continue;
    first = Math.min(first, rows.first[y]);
    last = Math.max(last, rows.last[y]);
  }
  return last < 0 ? piece : withMargin(piece, first, last);
}

/** The piece narrowed to the columns from `first` to `last` (its marks), plus SIDE_MARGIN either side. */
function withMargin(piece: Piece, first: number, last: number): Piece {
  return { ...piece, x0: Math.max(piece.x0, first - SIDE_MARGIN), x1: Math.min(piece.x1, last + 1 + SIDE_MARGIN) };
}

/** Cuts each band with more ink than one call reads into slices of about SLICE_ROWS, at its emptiest rows (between lines). */
export function cutDenseBands(image: GreyImage, bands: Piece[], rows = rowProfile(image)): Piece[] {
  const cut: Piece[] = [];
  for (const band of bands) {
    let y0 = band.y0;
    if (band.ink > CHUNK_INK) {
      while (band.y1 - y0 > SLICE_ROWS) {
        let at = y0 + SLICE_ROWS;
        for (let y = y0 + SLICE_ROWS / 2; y < y0 + SLICE_ROWS; y++) if (rows.ink[y] < rows.ink[at]) at = y;
        cut.push({ ...band, y0, y1: at, ink: sum(rows.ink, y0, at) });
        y0 = at;
      }
    }
    cut.push({ ...band, y0, y1: band.y1, ink: sum(rows.ink, y0, band.y1) });
  }
  return cut;
}

/**
 * Cuts each band with more ink than PIECE_INK at its blank rows, into pieces
 * of about PIECE_INK: a blank row lies between lines of text, so no word is
 * cut. The cut falls in the middle of a run of blank rows, so the text on
 * either side keeps its white margin, and no piece is thinner than a line of
 * text with its margins. A band with no blank row stays whole. (Bands span
 * the whole width, so the screen's row profile is theirs.)
 */
export function cutAtBlankRows(image: GreyImage, bands: Piece[], rows = rowProfile(image)): Piece[] {
  return bands.flatMap((band) => cutAcross(band, 'rows', rows, 0, PIECE_MIN_ROWS));
}

/**
 * Cuts each piece still holding more than PIECE_INK (widgets side by side,
 * whose lines never leave a row white across the screen) at runs of at least
 * CUT_MIN_COLUMNS blank columns, in their middle: between columns of a form,
 * never inside a phrase.
 */
export function cutAtBlankColumns(image: GreyImage, pieces: Piece[]): Piece[] {
  return pieces.flatMap((piece) => (piece.ink > PIECE_INK ? cutAcross(piece, 'columns', columnProfile(image, piece), piece.x0, CUT_MIN_COLUMNS) : [piece]));
}

/**
 * One mechanism for both directions: walks the piece's rows (or columns),
 * and once the ink walked over passes PIECE_INK, cuts at the middle of the
 * last run of blank lines that leaves at least `least` lines on each side.
 * `profile` holds the lines from `origin` on.
 */
function cutAcross(piece: Piece, along: 'rows' | 'columns', profile: Profile, origin: number, least: number): Piece[] {
  const [start, end] = along === 'rows' ? [piece.y0, piece.y1] : [piece.x0, piece.x1];
  const part = (from: number, to: number): Piece => {
    const ink = sum(profile.ink, from - origin, to - origin);
    return along === 'rows' ? { ...piece, y0: from, y1: to, ink } : { ...piece, x0: from, x1: to, ink };
  };
  // A run of blank lines counts as a place to cut only when it is at least `least` wide (rows need no more than one).
  const minimumRun = along === 'rows' ? 1 : least;
  const cut: Piece[] = [];
  let from = start, ink = 0, runStart = -1, at = -1;
  for (let i = start; i < end; i++) {
    if (profile.first[i - origin] < 0) {
      if (runStart < 0) runStart = i;
      const middle = Math.floor((runStart + i) / 2);
      if (i - runStart + 1 >= minimumRun && middle - from >= least && end - middle >= least) at = middle;
    } else {
      runStart = -1;
    }
    ink += profile.ink[i - origin];
    if (ink > PIECE_INK && at > from && runStart < 0) {
      cut.push(part(from, at));
      from = at;
      ink = sum(profile.ink, from - origin, i + 1 - origin);
      at = -1;
    }
  }
  cut.push(part(from, end));
  // A piece cut off across is narrowed to its own marks, as a band was to its rows'.
  // (A piece all blank, between two cuts, is dropped.)
  if (along === 'rows' || cut.length === 1) return cut;
  return cut.map((p) => withinMarks(p, profile, origin)).filter((p): p is Piece => p !== null);
}

/** A piece cut at columns, narrowed to the columns it marks, plus SIDE_MARGIN; null when it marks none. */
function withinMarks(piece: Piece, columns: Profile, origin: number): Piece | null {
  let first = piece.x0;
  while (first < piece.x1 && columns.first[first - origin] < 0) first++;
  if (first === piece.x1) return null;
  let last = piece.x1 - 1;
  while (last > first && columns.first[last - origin] < 0) last--;
  return withMargin(piece, first, last);
}

/** Consecutive pieces in chunks of at most `most` inked pixels (a denser piece is a chunk alone). */
export function inkChunks<P extends Piece>(pieces: P[], most: number): { pieces: P[]; ink: number }[] {
  const chunks: { pieces: P[]; ink: number }[] = [];
  for (const piece of pieces) {
    const last = chunks[chunks.length - 1];
    if (last && last.ink + piece.ink <= most) {
      last.pieces.push(piece);
      last.ink += piece.ink;
    } else {
      chunks.push({ pieces: [piece], ink: piece.ink });
    }
  }
  return chunks;
}

/**
 * A chunk's pieces as one image for one tesseract call: pieces of the same
 * rows side by side, as they stand on the screen, others one under another,
 * BAND_GAP white rows apart; the image spans only the columns the pieces do
 * (tesseract's time grows with the pixels it is given, white ones too).
 * `offsets` is where each piece's first row is in the image, `left` the
 * screen column of the image's first.
 */
export function stackPieces(image: GreyImage, pieces: Piece[]): { image: GreyImage; offsets: number[]; left: number } {
  const left = Math.min(...pieces.map((p) => p.x0));
  const width = Math.max(...pieces.map((p) => p.x1)) - left;
  const sameRows = (a: Piece, b: Piece | undefined) => !!b && a.y0 === b.y0 && a.y1 === b.y1;
  const offsets: number[] = [];
  let height = BAND_GAP;
  pieces.forEach((piece, k) => {
    if (sameRows(piece, pieces[k - 1])) {
      offsets.push(offsets[k - 1]);
      return;
    }
    offsets.push(height);
    height += piece.y1 - piece.y0 + BAND_GAP;
  });
  const data = new Uint8Array(width * height).fill(255);
  pieces.forEach((piece, k) => {
    for (let row = piece.y0, y = offsets[k]; row < piece.y1; row++, y++) {
      data.set(image.data.subarray(row * image.width + piece.x0, row * image.width + piece.x1), y * width + piece.x0 - left);
    }
  });
  return { image: { width, height, data }, offsets, left };
}

/** Which of the stacked pieces a word read at (x, y) of the stacked image, its middle, belongs to; -1 for none. */
export function pieceAt(pieces: Piece[], offsets: number[], left: number, x: number, y: number): number {
  return pieces.findIndex((p, k) => y >= offsets[k] && y < offsets[k] + (p.y1 - p.y0) && x + left >= p.x0 && x + left < p.x1);
}
