import fs from 'fs';
import os from 'os';
import path from 'path';
import { spawn } from 'child_process';
import { Client } from '../client/client';
import type { RecordedStep, RecordedSuggestion } from '../client/recorder/recorder';
import { inQuotes } from '../util/quotes';
import { InvalidOptionError } from '../config/errors';
import { knownFlags, parseFlags } from './flags';
import { addScenario, insertAfter, insertedStepLines, markFailedSteps, recordedStepLines, RecordedScenario, scenarioAt, upTo } from './feature-file';
import { addExampleNames, saveSecrets } from './env-files';
import { confirm } from './confirm';

/** What the command line's caller lends the command: the step registry's matching (it lives outside lib/). */
export interface RecordHooks {
  /** The step phrasings a line (keyword dropped) matches. */
  matchingPhrases?: (text: string) => string[];
}

const FLAGS = ['url', 'launch', 'from', 'feature', 'scenario', 'save-secrets', 'no-verify', 'resolution'];
const USAGE = "glance record (--url URL | --launch COMMAND | --from FILE:LINE) [--feature FILE] [--scenario NAME] [--save-secrets] [--no-verify] [--resolution WxH]";
/** How long the sandbox a replay up to --from's line leaves waits for the recorder to join it. */
const FROM_KEEP_ALIVE_MS = 10 * 60_000;
/** The longest a replay may take before it counts as failed. */
const REPLAY_BOUND_MS = 10 * 60_000;
/** How long the question whether to save the secrets waits for an answer; none is no. */
const SAVE_QUESTION_MS = 2 * 60_000;

/**
 * `glance record`: starts a sandbox on a page or a program, opens the live
 * preview, and records what the person does there as steps. Ctrl+C stops:
 * the scenario is replayed in a fresh sandbox (unless --no-verify), steps
 * that fail there are marked, and it is written into the feature file.
 */
export async function recordCommand(args: string[], hooks: RecordHooks = {}): Promise<number> {
  const { flags } = parseFlags(args, ['save-secrets', 'no-verify']);
  knownFlags('record', flags, FLAGS);
  const url = typeof flags.url === 'string' ? flags.url : null;
  const launch = typeof flags.launch === 'string' ? flags.launch : null;
  const from = typeof flags.from === 'string' ? parseFrom(flags.from) : null;
  if ([url, launch, from].filter(Boolean).length !== 1) {
    throw new InvalidOptionError(url ? 'launch' : 'url', `glance record takes one of --url, --launch or --from, to say what to record on. Usage: ${USAGE}`);
  }
  const feature = path.resolve(from?.file ?? (typeof flags.feature === 'string' ? flags.feature : path.join('features', 'recorded.feature')));
  const name = typeof flags.scenario === 'string' ? flags.scenario : `Recorded ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`;
  const existing = fs.existsSync(feature) ? fs.readFileSync(feature, 'utf8') : null;
  if (from && existing === null) throw new InvalidOptionError('from', `--from names ${from.file}, which does not exist; give FILE:LINE of a step in an existing feature file.`);
  const goingOn = from ? { line: from.line, scenario: scenarioAt(existing!, from.line) } : null;

  if (goingOn) {
    console.log(`Replaying '${goingOn.scenario.name}' up to line ${goingOn.line} in a new sandbox, then recording from there...`);
    // The sandbox outlives the replay (keepAlive, not reused), and the recorder joins it as the replay left it.
    const upToLine = await runScenario(upTo(existing!, goingOn.line), goingOn.scenario.line, process.env, ['--world-parameters', JSON.stringify({ glance: { reuseSandbox: false, keepAlive: FROM_KEEP_ALIVE_MS } })]);
    const failed = upToLine.steps.find((s) => s.result.status !== 'passed');
    if (failed || !upToLine.steps.length) throw new Error(`The replay up to line ${goingOn.line} did not pass${failed ? ` (line ${failed.line}: ${(failed.result.error_message ?? failed.result.status).split('\n')[0]})` : `: ${tail(upToLine.output)}`}; nothing was recorded.`);
  }

  const client = new Client({
    dashcam: false,
    preview: (process.env.GLANCE_PREVIEW as 'browser' | 'ide' | 'none' | undefined) ?? 'browser',
    ...(goingOn ? { reconnect: true } : {}),
    ...(typeof flags.resolution === 'string' ? { resolution: flags.resolution } : {}),
  });
  client.getEmitter().on('log:info', (line: string) => console.log(`[glance] ${line}`));
  client.getEmitter().on('recorder:step', (step: RecordedStep) => {
    console.log(`step ${step.index}: ${step.text}${step.flags.length ? `  (check: ${step.flags.join('; ')})` : ''}${step.replaces ? `  (stands for step ${step.replaces})` : ''}`);
  });
  let listed: number[] = [];
  client.getEmitter().on('recorder:steps', (steps: RecordedStep[]) => {
    // A list that is more than the last one plus a new step was edited (on the preview page): it is said whole.
    const now = steps.map((s) => s.index);
    const appended = now.length === listed.length + 1 && listed.every((n, i) => now[i] === n);
    if (!appended && now.join() !== listed.join()) console.log(`steps now: ${now.join(', ') || 'none'}`);
    listed = now;
  });
  client.getEmitter().on('recorder:suggestion', (suggestion: RecordedSuggestion) => {
    console.log(`  suggested check after step ${suggestion.afterStep}: ${suggestion.keyword} ${suggestion.text}`);
  });
  let steps: string;
  let secrets: Record<string, string>;
  try {
    await client.auth();
    const instance = await client.connect({ keepAlive: 0 });
    if (url) await client.provision.chrome({ url });
    else if (launch) await client.provision.app({ command: launch });
    const recorder = await client.record();
    console.log(`Recording in sandbox ${instance.instanceId} (display ${instance.display ?? 'none'}). Use the app in the live preview${instance.vncPort ? ` or over VNC (port ${instance.vncPort})` : ''}; press Stop there, or Ctrl+C here, to stop.`);
    const interrupted = interruption();
    await Promise.race([interrupted.promise, recorder.stopRequested()]);
    interrupted.dispose();
    console.log('Stopping: the last steps are being made.');
    steps = await recorder.stop();
    secrets = recorder.secrets();
  } finally {
    await client.disconnect();
  }
  const lines = steps ? checked(steps.split('\n'), hooks) : [];
  if (!lines.length) {
    console.log('Nothing was recorded; no file was written.');
    return 0;
  }
  let text: string;
  let scenarioLine: number;
  let recordedLines: number[];
  if (goingOn) {
    text = insertAfter(existing!, goingOn.line, lines);
    scenarioLine = goingOn.scenario.line;
    recordedLines = insertedStepLines(goingOn.line, lines);
  } else {
    const scenario: RecordedScenario = { name, setup: url ? `Given I open ${inQuotes(url)} in the browser` : `Given I launch ${inQuotes(launch!)}`, lines };
    text = addScenario(existing, scenario);
    scenarioLine = text.split(/\r?\n/).map((l) => l.trim()).lastIndexOf(`Scenario: ${name}`) + 1;
    recordedLines = recordedStepLines(text, scenario);
  }
  if (!flags['no-verify']) {
    console.log('Replaying the scenario in a fresh sandbox before it is saved (--no-verify skips this)...');
    const failures = await replayFailures(text, scenarioLine, new Set(recordedLines), secrets);
    text = markFailedSteps(text, failures);
    for (const failure of failures) console.log(`Step on line ${failure.line} failed on replay: ${failure.message.split('\n')[0]}`);
    if (!failures.length) console.log('The scenario replayed green.');
  }
  fs.mkdirSync(path.dirname(feature), { recursive: true });
  fs.writeFileSync(feature, text);
  console.log(goingOn
    ? `Wrote the recorded steps into '${goingOn.scenario.name}' after line ${goingOn.line} of ${path.relative(process.cwd(), feature) || feature}.`
    : `Wrote the scenario '${name}' to ${path.relative(process.cwd(), feature) || feature}.`);
  const project = process.cwd();
  const added = addExampleNames(project, Object.keys(secrets));
  if (added.length) console.log(`The steps read ${added.map((n) => `$${n}`).join(', ')} from the environment: added to .env.example without values.`);
  if (Object.keys(secrets).length) {
    const names = Object.keys(secrets).map((n) => `$${n}`).join(', ');
    if (flags['save-secrets'] || await confirm(`Save the values of ${names} in .env (git-ignored) for the next runs? [y/N] `, SAVE_QUESTION_MS)) {
      saveSecrets(project, secrets);
      console.log(`Saved the values of ${names} in .env (git-ignored).`);
    } else {
      console.log(`Set ${names} in .env or the environment before running the scenario (--save-secrets writes them to .env).`);
    }
  }
  return 0;
}

/** `FILE:LINE`, or an error naming the flag, the value and the form. */
function parseFrom(value: string): { file: string; line: number } {
  const match = /^(.+):(\d+)$/.exec(value);
  if (!match) throw new InvalidOptionError('from', `--from takes FILE:LINE, the step to record on from, e.g. features/accounts.feature:12; got '${value}'.`);
  return { file: match[1], line: Number(match[2]) };
}

const tail = (output: string) => output.split('\n').filter(Boolean).slice(-3).join(' ');

/** Resolves at the first Ctrl+C (SIGINT) or SIGTERM; a second one ends the process at once. `dispose` lets go of both signals. */
function interruption(): { promise: Promise<void>; dispose(): void } {
  let stop = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once('SIGINT', () => process.exit(130));
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return {
    promise,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** The lines, each step that does not match exactly one step of the library flagged with a comment above it. */
function checked(lines: string[], hooks: RecordHooks): string[] {
  if (!hooks.matchingPhrases) return lines;
  return lines.flatMap((line) => {
    const step = /^(?:Given|When|Then|And|But)\s+(.*)$/.exec(line)?.[1];
    if (!step) return [line];
    const matching = hooks.matchingPhrases!(step);
    if (matching.length === 1) return [line];
    return [`# check: ${matching.length ? `matches ${matching.length} steps (${matching.join('; ')})` : 'matches no step of the library'}`, line];
  });
}

interface StepResult { line: number; result: { status: string; error_message?: string } }

/** Runs the scenario at a line of a feature's text with cucumber-js, in the project's configuration; resolves to its steps' results and output. */
async function runScenario(text: string, scenarioLine: number, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<{ steps: StepResult[]; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-replay-'));
  try {
    const file = path.join(dir, 'recorded.feature');
    fs.writeFileSync(file, text);
    const json = path.join(dir, 'result.json');
    const cucumber = path.join(path.dirname(require.resolve('@cucumber/cucumber/package.json', { paths: [process.cwd(), __dirname] })), 'bin', 'cucumber.js');
    const output = await run(process.execPath, [cucumber, `${file}:${scenarioLine}`, '--format', `json:${json}`, ...extra], { ...env, GLANCE_PREVIEW: 'none' });
    const results = fs.existsSync(json) ? JSON.parse(fs.readFileSync(json, 'utf8') || '[]') : [];
    const steps: StepResult[] = results.flatMap((f: any) => f.elements ?? []).flatMap((e: any) => e.steps ?? []).filter((s: StepResult) => s.line !== undefined);
    return { steps, output };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Replays the scenario in a fresh sandbox; resolves to the recorded steps that failed there, by line. */
async function replayFailures(text: string, scenarioLine: number, recorded: Set<number>, secrets: Record<string, string>): Promise<{ line: number; message: string }[]> {
  const { steps, output } = await runScenario(text, scenarioLine, { ...process.env, ...secrets });
  if (!steps.length) return [{ line: scenarioLine, message: `the replay did not run: ${tail(output)}` }];
  return steps.filter((s) => recorded.has(s.line) && ['failed', 'undefined', 'ambiguous'].includes(s.result.status))
    .map((s) => ({ line: s.line, message: s.result.error_message ?? s.result.status }));
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const bound = setTimeout(() => child.kill('SIGTERM'), REPLAY_BOUND_MS);
    child.on('close', () => {
      clearTimeout(bound);
      resolve(output);
    });
  });
}
