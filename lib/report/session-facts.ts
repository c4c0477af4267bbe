/**
 * A scenario's sandbox facts travel to the report as a text attachment:
 * `Glance session: os=linux; resolution=1366x768; locator=ocr; sandbox=…`.
 */
export const SESSION_FACTS = 'Glance session: ';

export function sessionFactsText(facts: Record<string, string>): string {
  return SESSION_FACTS + Object.entries(facts).map(([key, value]) => `${key}=${value}`).join('; ');
}

interface JsonStep { embeddings?: { mime_type: string; data: string }[] }
export interface CucumberJsonFeature { elements?: { before?: JsonStep[]; steps?: JsonStep[]; after?: JsonStep[] }[] }

/** The text attachments of every scenario (before hooks, steps and after hooks) that start with `prefix`, without it. */
export function attachedTexts(features: CucumberJsonFeature[], prefix: string): string[] {
  const texts: string[] = [];
  for (const scenario of features.flatMap((f) => f.elements ?? [])) {
    for (const step of [...(scenario.before ?? []), ...(scenario.steps ?? []), ...(scenario.after ?? [])]) {
      for (const embedding of step.embeddings ?? []) {
        if (embedding.mime_type !== 'text/plain') continue;
        const text = Buffer.from(embedding.data, 'base64').toString('utf8');
        if (text.startsWith(prefix)) texts.push(text.slice(prefix.length));
      }
    }
  }
  return texts;
}

/** Every fact the scenarios of a Cucumber JSON report attached, as key → the distinct values. */
export function collectSessionFacts(features: CucumberJsonFeature[]): Map<string, Set<string>> {
  const facts = new Map<string, Set<string>>();
  for (const text of attachedTexts(features, SESSION_FACTS)) {
    for (const pair of text.split('; ')) {
      const [key, value] = pair.split('=');
      if (!facts.has(key)) facts.set(key, new Set());
      facts.get(key)!.add(value);
    }
  }
  return facts;
}
