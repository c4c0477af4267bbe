/**
 * Reading a model's answer tolerantly: JSON in a code fence or with prose
 * around it, a bare array, numbers in brackets, parentheses or tags, and an
 * explicit "not found". Each family then says what the numbers mean.
 */

/** Numbers the answer gave for one element: 4 for a box, 2 for a point, in the order written. */
export interface RawCoords {
  values: number[];
  /** The key they came under (`bbox_2d`, `box_2d`, `point` …), when they came from JSON. */
  key: string | null;
}

const NOT_FOUND = /\b(not (?:be )?(?:found|present|visible|shown|see|locate|find)|no (?:such|matching|visible) (?:element|item|control|match)|(?:cannot|can't|could not|couldn't|unable to) (?:find|locate|see|identify)|does(?:n't| not) (?:appear|exist|show|contain)|there is no|none (?:of|found|matches))/i;
const BOX_KEYS = ['bbox_2d', 'box_2d', 'bbox', 'box', 'boxes', 'bounding_box', 'point_2d', 'point', 'points', 'coordinates', 'coordinate', 'position', 'click', 'start_box'];

/** The reason an answer gives for finding nothing, or null when it does not say so. */
export function notFoundReason(text: string): string | null {
  const json = extractJson(text);
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const o = json as Record<string, unknown>;
    if (o.found === false || o.found === 'false' || o.found === 'no') return typeof o.reason === 'string' && o.reason ? o.reason : 'the model found no match';
  }
  if (Array.isArray(json) && json.length === 0) return prose(text) || 'the model answered with an empty list';
  if (coordsIn(text).length) return null;
  const match = NOT_FOUND.exec(text);
  return match ? prose(text) || match[0] : null;
}

/** Every element's numbers in an answer: from JSON where there is JSON, else from bracketed numbers in the text. */
export function coordsIn(text: string): RawCoords[] {
  const json = extractJson(text);
  const fromJson = json !== undefined ? coordsOfJson(json, null) : [];
  if (fromJson.length) return fromJson;
  return numberGroups(text).map((values) => ({ values, key: null }));
}

/** The first JSON value in the text: inside a code fence, or the first bracketed span that parses. */
export function extractJson(text: string): unknown {
  const fenced = /```(?:json|JSON)?\s*([\s\S]*?)```/.exec(text);
  const candidates = fenced ? [fenced[1], text] : [text];
  for (const candidate of candidates) {
    for (let start = 0; start < candidate.length; start++) {
      const open = candidate[start];
      if (open !== '{' && open !== '[') continue;
      const end = matchingClose(candidate, start);
      if (end < 0) continue;
      const parsed = parseLoose(candidate.slice(start, end + 1));
      if (parsed !== undefined) return parsed;
    }
  }
  return undefined;
}

function matchingClose(text: string, start: number): number {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"') quote = ch;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** JSON, or JSON as models often write it: single quotes, trailing commas, unquoted keys. */
function parseLoose(span: string): unknown {
  try {
    return JSON.parse(span);
  } catch {
    const repaired = span
      .replace(/'/g, '"')
      .replace(/,\s*([}\]])/g, '$1')
      .replace(/([{,]\s*)([A-Za-z_][\w]*)\s*:/g, '$1"$2":');
    try {
      return JSON.parse(repaired);
    } catch {
      return undefined;
    }
  }
}

function coordsOfJson(value: unknown, key: string | null): RawCoords[] {
  if (Array.isArray(value)) {
    if ((value.length === 4 || value.length === 2) && value.every(isNumeric)) return [{ values: value.map(Number), key }];
    return value.flatMap((item) => coordsOfJson(item, key));
  }
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (o.found === false) return [];
    // {x, y, width, height} or {x1, y1, x2, y2} or {x, y}
    if (isNumeric(o.x1) && isNumeric(o.y1) && isNumeric(o.x2) && isNumeric(o.y2)) return [{ values: [o.x1, o.y1, o.x2, o.y2].map(Number), key: key ?? 'box' }];
    if (isNumeric(o.x) && isNumeric(o.y) && isNumeric(o.width) && isNumeric(o.height)) {
      const [x, y, w, h] = [o.x, o.y, o.width, o.height].map(Number);
      return [{ values: [x, y, x + w, y + h], key: key ?? 'box' }];
    }
    if (isNumeric(o.x) && isNumeric(o.y)) return [{ values: [Number(o.x), Number(o.y)], key: key ?? 'point' }];
    for (const name of BOX_KEYS) {
      if (o[name] === undefined) continue;
      const inner = typeof o[name] === 'string' ? numberGroups(o[name] as string).map((values) => ({ values, key: name })) : coordsOfJson(o[name], name);
      if (inner.length) return inner;
    }
    return Object.values(o).flatMap((v) => (typeof v === 'object' ? coordsOfJson(v, key) : []));
  }
  return [];
}

const isNumeric = (v: unknown): boolean => (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v));

/**
 * Groups of 4 (a box) or 2 (a point) numbers written together: `[10, 20, 30, 40]`,
 * `(10,20),(30,40)`, `<bbox>10 20 30 40</bbox>`, `<point>10 20</point>`, `(x,y)`.
 */
export function numberGroups(text: string): number[][] {
  const cleaned = text
    .replace(/<\|box_start\|>|<\|box_end\|>|<\|begin_of_box\|>|<\|end_of_box\|>/g, ' ')
    .replace(/<(?:bbox|point)>([^<]*)<\/(?:bbox|point)>/g, '[$1]');
  const groups: number[][] = [];
  const n = String.raw`(-?\d+(?:\.\d+)?)`;
  const sep = String.raw`\s*[,\s]\s*`;
  const box = new RegExp(String.raw`[\[(<]?\s*${n}${sep}${n}\s*\)?${sep}\(?\s*${n}${sep}${n}\s*[\])>]`, 'g');
  const point = new RegExp(String.raw`[\[(]\s*${n}${sep}${n}\s*[\])]`, 'g');
  const taken: [number, number][] = [];
  for (const m of cleaned.matchAll(box)) {
    groups.push([m[1], m[2], m[3], m[4]].map(Number));
    taken.push([m.index!, m.index! + m[0].length]);
  }
  for (const m of cleaned.matchAll(point)) {
    if (taken.some(([a, b]) => m.index! >= a && m.index! < b)) continue;
    groups.push([m[1], m[2]].map(Number));
  }
  return groups;
}

/** The prose of an answer, without code and JSON, as a short reason. */
function prose(text: string): string {
  return text.replace(/```[\s\S]*?```/g, ' ').replace(/[[\]{}"]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 300);
}
