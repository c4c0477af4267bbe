import { MediaStore } from './media';
import { STEP_EVIDENCE, StepEvidence } from './step-evidence';
import { clipHtml, failureHtml, findHtml, pictureHtml, timingHtml } from './evidence-html';

interface Embedding { mime_type: string; data: string }
interface JsonStep { embeddings?: Embedding[] }
interface JsonScenario { before?: JsonStep[]; steps?: JsonStep[]; after?: JsonStep[] }
export interface JsonFeature { elements?: JsonScenario[] }

const decode = (data: string) => Buffer.from(data, 'base64').toString('utf8');
const html = (text: string): Embedding => ({ mime_type: 'text/html', data: Buffer.from(text).toString('base64') });

function evidenceOf(embedding: Embedding): StepEvidence | null {
  if (embedding.mime_type !== STEP_EVIDENCE) return null;
  try {
    return JSON.parse(decode(embedding.data)) as StepEvidence;
  } catch {
    return null;
  }
}

/**
 * Turns a Cucumber JSON report's attachments into what the HTML report shows:
 * Glance's step evidence becomes HTML (the picture with its box, the engine,
 * the cache, the time; for a failure what was looked for, what was seen and
 * the dashcam clip at that moment), and every picture, Glance's or a custom
 * step's base64 PNG, is stored once in the media folder instead of inline.
 */
export async function enrichFeatures(features: JsonFeature[], media: MediaStore): Promise<JsonFeature[]> {
  for (const scenario of features.flatMap((f) => f.elements ?? [])) {
    const steps = [...(scenario.before ?? []), ...(scenario.steps ?? []), ...(scenario.after ?? [])];
    const clipEvidence = steps.flatMap((s) => s.embeddings ?? []).map(evidenceOf).find((e) => e?.kind === 'clip');
    const clipLink = clipEvidence?.kind === 'clip' ? media.clip(clipEvidence.file) : null;
    const clip = clipLink && clipEvidence?.kind === 'clip' ? { link: clipLink, startedAt: clipEvidence.startedAt } : null;
    for (const step of steps) {
      if (!step.embeddings) continue;
      const out: Embedding[] = [];
      for (const embedding of step.embeddings) {
        const evidence = evidenceOf(embedding);
        if (evidence?.kind === 'find') out.push(html(findHtml(evidence, evidence.picture ? await media.picture(evidence.picture) : null)));
        else if (evidence?.kind === 'failure') out.push(html(failureHtml(evidence, evidence.picture ? await media.picture(evidence.picture) : null, clip)));
        else if (evidence?.kind === 'picture') out.push(html(pictureHtml(evidence, await media.picture(evidence.picture))));
        else if (evidence?.kind === 'clip') out.push(html(clipHtml(evidence, clipLink)));
        else if (evidence?.kind === 'scenario') continue;
        else if (evidence?.kind === 'timing') {
          const shown = timingHtml(evidence);
          if (shown) out.push(html(shown));
        }
        else if (/^image\/(png|jpeg)$/.test(embedding.mime_type)) {
          out.push(html(pictureHtml({ kind: 'picture', title: 'attached picture', picture: '' }, await media.picture(Buffer.from(embedding.data, 'base64')))));
        } else out.push(embedding);
      }
      step.embeddings = out;
    }
  }
  return features;
}
