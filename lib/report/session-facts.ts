/**
 * A scenario's sandbox facts travel to the report as a text attachment:
 * `Glance session: os=linux; resolution=1366x768; locator=ocr; sandbox=…`.
 */
export const SESSION_FACTS = 'Glance session: ';

export function sessionFactsText(facts: Record<string, string>): string {
  return SESSION_FACTS + Object.entries(facts).map(([key, value]) => `${key}=${value}`).join('; ');
}

interface JsonStep { embeddings?: { mime_type: string; data: string }[] }
export interface CucumberJsonFeature { elements?: { before?: JsonStep[]; steps?: JsonStep[] }[] }

/** Every fact the scenarios of a Cucumber JSON report attached, as key → the distinct values. */
export function collectSessionFacts(features: CucumberJsonFeature[]): Map<string, Set<string>> {
  const facts = new Map<string, Set<string>>();
  for (const scenario of features.flatMap((f) => f.elements ?? [])) {
    for (const step of [...(scenario.before ?? []), ...(scenario.steps ?? [])]) {
      for (const embedding of step.embeddings ?? []) {
        if (embedding.mime_type !== 'text/plain') continue;
        const text = Buffer.from(embedding.data, 'base64').toString('utf8');
        if (!text.startsWith(SESSION_FACTS)) continue;
        for (const pair of text.slice(SESSION_FACTS.length).split('; ')) {
          const [key, value] = pair.split('=');
          if (!facts.has(key)) facts.set(key, new Set());
          facts.get(key)!.add(value);
        }
      }
    }
  }
  return facts;
}
