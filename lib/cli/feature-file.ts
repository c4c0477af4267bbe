/**
 * Puts a recorded scenario into a feature file as a person would: after the
 * file's last scenario, with the file's own indentation, everything else in
 * it (comments, tags, blank lines) left as it was; or, where there is no
 * file yet, as a new one. A step the file's Background already takes (the
 * page opened, the program launched) is not repeated in the scenario.
 */

export interface RecordedScenario {
  name: string;
  /** The step that sets the scene (`Given I open '…' in the browser`), keyword included. */
  setup: string | null;
  /** The recorded lines, keywords included, flags as comments; not indented. */
  lines: string[];
}

const STEP = /^\s*(?:Given|When|Then|And|But|\*)\s+(.*?)\s*$/;

/** The feature file's text with the scenario added (or a new file's text, for `existing` null). */
export function addScenario(existing: string | null, scenario: RecordedScenario, featureName = 'Recorded scenarios'): string {
  if (existing === null || !existing.trim()) {
    return [`Feature: ${featureName}`, '', ...scenarioLines(scenario, '  ', '    ', false), ''].join('\n');
  }
  const lines = existing.replace(/\s+$/, '').split('\n');
  const keywordIndent = lines.map((l) => /^(\s*)(?:Scenario|Scenario Outline|Example|Background):/.exec(l)?.[1]).find((i) => i !== undefined) ?? '  ';
  const stepIndent = lines.map((l) => /^(\s*)(?:Given|When|Then|And|But)\s/.exec(l)?.[1]).find((i) => i !== undefined) ?? `${keywordIndent}  `;
  const background = backgroundSteps(lines);
  const inBackground = scenario.setup !== null && background.includes(scenario.setup.replace(STEP, '$1'));
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  return [...lines.map((l) => l.replace(/\r$/, '')), '', ...scenarioLines(scenario, keywordIndent, stepIndent, inBackground), ''].join(eol);
}

function scenarioLines(scenario: RecordedScenario, keywordIndent: string, stepIndent: string, setupInBackground: boolean): string[] {
  const steps = [...(scenario.setup && !setupInBackground ? [scenario.setup] : []), ...scenario.lines];
  // The scene's Given goes first; the first recorded step after it is a When.
  return [`${keywordIndent}Scenario: ${scenario.name}`, ...steps.map((l) => `${stepIndent}${l}`)];
}

/** The steps of the file's Background, keywords dropped. */
function backgroundSteps(lines: string[]): string[] {
  const start = lines.findIndex((l) => /^\s*Background:/.test(l));
  if (start < 0) return [];
  const steps: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*(?:Scenario|Scenario Outline|Example|Rule|Examples):/.test(line) || /^\s*@/.test(line)) break;
    const match = STEP.exec(line);
    if (match) steps.push(match[1]);
  }
  return steps;
}

/** The 1-based line numbers of the scenario's recorded steps in the file's text (the scenario added last). */
export function recordedStepLines(text: string, scenario: RecordedScenario): number[] {
  const lines = text.split(/\r?\n/);
  const start = lines.map((l) => l.trim()).lastIndexOf(`Scenario: ${scenario.name}`);
  const out: number[] = [];
  let next = 0;
  const wanted = scenario.lines.filter((l) => !l.startsWith('#'));
  for (let i = start + 1; i < lines.length && next < wanted.length; i++) {
    if (lines[i].trim() === wanted[next]) {
      out.push(i + 1);
      next++;
    }
  }
  return out;
}

/**
 * The file's text with a comment above each step line named, saying why it
 * failed on replay: the person sees which steps to look at, and the rest of
 * the scenario stays as recorded.
 */
export function markFailedSteps(text: string, failures: { line: number; message: string }[]): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  for (const failure of [...failures].sort((a, b) => b.line - a.line)) {
    const index = failure.line - 1;
    const indent = /^(\s*)/.exec(lines[index] ?? '')![1];
    lines.splice(index, 0, `${indent}# check: failed on replay: ${failure.message.split('\n')[0]}`);
  }
  return lines.join(eol);
}

/** The scenario a step line of a feature file belongs to: its name and the line of its `Scenario:`. */
export function scenarioAt(text: string, line: number): { name: string; line: number } {
  const lines = text.split(/\r?\n/);
  if (!Number.isInteger(line) || line < 1 || line > lines.length) throw new Error(`the file has ${lines.length} lines; line ${line} is not one of them.`);
  if (!STEP.test(lines[line - 1])) throw new Error(`line ${line} is not a step: '${lines[line - 1].trim()}'. Name the line of the step to record on from.`);
  for (let i = line - 1; i >= 0; i--) {
    const header = /^\s*(Scenario|Example|Scenario Outline|Scenario Template|Background):\s*(.*?)\s*$/.exec(lines[i]);
    if (!header) continue;
    if (header[1] === 'Background') throw new Error(`line ${line} is in the Background: name a step of a scenario.`);
    if (/Outline|Template/.test(header[1])) throw new Error(`line ${line} is in a Scenario Outline, whose examples each run apart: record on from a plain scenario.`);
    return { name: header[2], line: i + 1 };
  }
  throw new Error(`line ${line} is in no scenario.`);
}

/** The file's text up to and including a line: what a replay up to that step runs. */
export function upTo(text: string, line: number): string {
  return `${text.split(/\r?\n/).slice(0, line).join('\n')}\n`;
}

/** The file's text with the recorded lines put after a step line, in that step's indentation. */
export function insertAfter(text: string, line: number, recorded: string[]): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const indent = /^(\s*)/.exec(lines[line - 1])![1];
  // Going on from a step: the recorded scenario's first When reads as the next step of it.
  const steps = recorded.map((l, i) => `${indent}${i === firstStep(recorded) ? l.replace(/^When /, 'And ') : l}`);
  lines.splice(line, 0, ...steps);
  return lines.join(eol);
}

const firstStep = (lines: string[]) => lines.findIndex((l) => !l.startsWith('#'));

/** The 1-based lines of the recorded steps put in by insertAfter(). */
export function insertedStepLines(line: number, recorded: string[]): number[] {
  return recorded.map((l, i) => (l.startsWith('#') ? 0 : line + 1 + i)).filter(Boolean);
}
