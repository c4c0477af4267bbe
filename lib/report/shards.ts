import fs from 'fs';
import path from 'path';
import { InvalidOptionError } from '../config/errors';
import { messagesToJson } from './messages-to-json';
import { STEP_EVIDENCE, StepEvidence } from './step-evidence';

/**
 * The shards of one suite, split over CI machines with `cucumber-js --shard
 * i/n`, read back as one run: each shard's scenarios, and the evidence files
 * their records name, found wherever the shard's files were brought to.
 */

interface Embedding { mime_type: string; data: string }
interface JsonStep { embeddings?: Embedding[] }
interface JsonScenario { line?: number; name?: string; type?: string; before?: JsonStep[]; steps?: JsonStep[]; after?: JsonStep[] }
export interface ShardFeature { uri: string; elements?: JsonScenario[]; [key: string]: unknown }

export interface Shard {
  /** The path it was read from, as given. */
  source: string;
  features: ShardFeature[];
  /** Where its evidence files are looked for when they are not where the shard wrote them. */
  searchRoots: string[];
}

/**
 * A shard's records: a `message:` NDJSON file, a Cucumber JSON file, or a
 * reports folder (its message files if it has any, else its JSON files, at
 * its top or in `json/`).
 */
export function readShard(source: string): Shard {
  const at = path.resolve(source);
  if (!fs.existsSync(at)) throw new InvalidOptionError('merge', `No shard at ${source}. Give each shard's message file (message:FILE), Cucumber JSON file, or reports folder.`);
  const files = fs.statSync(at).isDirectory() ? recordsIn(at) : [at];
  if (!files.length) throw new InvalidOptionError('merge', `${source} holds no Cucumber records: no .ndjson message file, and no .json file at its top or in json/. Run the shard with a 'message:' or 'json:' format writing there.`);
  const features = files.flatMap((file) => featuresOf(file));
  const folder = fs.statSync(at).isDirectory() ? at : path.dirname(at);
  // A shard's artifact is often its reports folder with the state folder beside it (.glance/screenshots).
  return { source, features, searchRoots: [folder, path.dirname(folder)] };
}

function recordsIn(folder: string): string[] {
  const inFolder = (dir: string, ext: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(ext)).sort().map((f) => path.join(dir, f)) : []);
  const messages = inFolder(folder, '.ndjson');
  if (messages.length) return messages;
  return [...inFolder(folder, '.json'), ...inFolder(path.join(folder, 'json'), '.json')];
}

function featuresOf(file: string): ShardFeature[] {
  const text = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.ndjson')) return messagesToJson(text, file) as ShardFeature[];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidOptionError('merge', `${file} is not JSON. Give a Cucumber JSON report (the 'json:' format's output) or a message file (.ndjson).`);
  }
  if (!Array.isArray(parsed) || parsed.some((f) => typeof f?.uri !== 'string')) {
    throw new InvalidOptionError('merge', `${file} is JSON but not a Cucumber JSON report (an array of features with a uri each).`);
  }
  return parsed as ShardFeature[];
}

/** One feature per file: a feature whose scenarios ran in several shards is shown once, its scenarios in file order. */
export function mergeFeatures(shards: Shard[]): ShardFeature[] {
  const byUri = new Map<string, ShardFeature>();
  for (const feature of shards.flatMap((s) => s.features)) {
    const known = byUri.get(feature.uri);
    if (!known) byUri.set(feature.uri, { ...feature, elements: [...(feature.elements ?? [])] });
    else known.elements = [...(known.elements ?? []), ...(feature.elements ?? [])];
  }
  for (const feature of byUri.values()) feature.elements?.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
  return [...byUri.values()];
}

/** An evidence file a shard's record names. */
export interface EvidenceRef {
  shard: string;
  /** The scenario's identity across runs (what the team server knows it by), or its name. */
  scenario: string;
  kind: 'failure' | 'clip' | 'picture';
  file: string;
}

/** Looks for a file a shard's record names, elsewhere than where it was written; null when it has none. */
export type EvidenceSource = (ref: EvidenceRef) => Promise<string | null>;

/**
 * The evidence file where the shard's files were brought: the path as
 * written (the same machine, or a runner with the same workspace path), else
 * its trailing folders under each of the shard's search roots
 * (`.glance/screenshots/x.png` under the downloaded artifact).
 */
export function filesBesideShard(shard: Shard, file: string): string | null {
  if (fs.existsSync(file)) return file;
  const parts = file.split(/[\\/]+/).filter(Boolean);
  for (const root of shard.searchRoots) {
    for (let from = parts.length - 1; from >= 0; from--) {
      const candidate = path.join(root, ...parts.slice(from));
      if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
    }
  }
  return null;
}

const decode = (e: Embedding) => JSON.parse(Buffer.from(e.data, 'base64').toString('utf8')) as StepEvidence;
const encode = (evidence: StepEvidence) => Buffer.from(JSON.stringify(evidence)).toString('base64');

/**
 * Points every evidence file a shard names at where it was found: beside the
 * shard, else from `fallback` (the team server). Returns what was found
 * nowhere; those stay named as they were, and the report says the picture
 * was not kept.
 */
export async function locateEvidence(shard: Shard, fallback: EvidenceSource | null): Promise<EvidenceRef[]> {
  const missing: EvidenceRef[] = [];
  for (const scenario of shard.features.flatMap((f) => (f.elements ?? []).map((e) => ({ feature: f, scenario: e })))) {
    const steps = [...(scenario.scenario.before ?? []), ...(scenario.scenario.steps ?? []), ...(scenario.scenario.after ?? [])];
    const embeddings = steps.flatMap((s) => s.embeddings ?? []).filter((e) => e.mime_type === STEP_EVIDENCE);
    const identity = embeddings.map(decode).find((e) => e.kind === 'scenario');
    const name = identity?.kind === 'scenario' ? identity.identity : `${scenario.feature.uri}: ${scenario.scenario.name ?? ''}`;
    for (const embedding of embeddings) {
      const evidence = decode(embedding);
      const named = fileOf(evidence);
      if (!named) continue;
      const ref: EvidenceRef = { shard: shard.source, scenario: name, kind: evidence.kind === 'clip' ? 'clip' : evidence.kind === 'failure' ? 'failure' : 'picture', file: named };
      const found = filesBesideShard(shard, named) ?? (fallback ? await fallback(ref) : null);
      if (!found) missing.push(ref);
      else if (found !== named) embedding.data = encode(withFile(evidence, found));
    }
  }
  return missing;
}

function fileOf(evidence: StepEvidence): string | null {
  if (evidence.kind === 'clip') return evidence.file;
  if (evidence.kind === 'find' || evidence.kind === 'failure' || evidence.kind === 'picture') return evidence.picture || null;
  return null;
}

function withFile(evidence: StepEvidence, file: string): StepEvidence {
  return evidence.kind === 'clip' ? { ...evidence, file } : { ...evidence, picture: file } as StepEvidence;
}
