import path from 'path';
import { cucumber, ITestCaseHookParameter } from './cucumber-api';
import type { Client } from '../lib/client/client';
import type { ClientOptions } from '../lib/config/options';
import { fileCacheKey } from '../lib/client/cache-key';
import { bestCandidate, evidenceAttachment, STEP_EVIDENCE } from '../lib/report/step-evidence';
import { GlanceWorld } from './world';
import { sessionFactsText } from '../lib/report/session-facts';
import { addUsage, noUsage, UsageTotals, usageText } from '../lib/report/model-usage';
import { scenarioSettings } from './settings';
import { joinFresh, SandboxPool } from './sandbox-pool';
import { KeptSandboxes } from './kept-sandboxes';
import { plannedRun } from './planned-run';
import { RESOLUTION_STEP } from '../steps/setup';
import { addCommand, noPhases, rounded, StepPhases } from '../lib/report/step-timing';
import type { CommandEvent } from '../lib/client/command-runner';
import { reportToServer, scenarioIdentity } from './run-report';
import { runId } from '../lib/client/analytics';
import { defaultStateDir } from '../lib/config/state-dir';

const { After, AfterAll, AfterStep, Before, BeforeStep, setDefaultTimeout, setWorldConstructor, Status } = cucumber;

setWorldConstructor(GlanceWorld);
// Finds poll for up to 10 s by default, and "within N seconds" asks for more: steps get room.
setDefaultTimeout(180_000);

/**
 * The client, with its service and engines, loads with the first scenario:
 * a dry run, or a run whose steps are all undefined, never pays for it.
 */
let clientsMade = false;
function newClient(options: ClientOptions): Client {
  const { Client: ClientClass } = require('../lib/client/client') as typeof import('../lib/client/client');
  clientsMade = true;
  return new ClientClass(options);
}

/** A reused sandbox stays this long between scenarios; the ones kept are stopped when the worker ends. */
const REUSE_KEEP_ALIVE_MS = 60_000;
/** Sandboxes started before their scenario: the first while Cucumber loads (see start-ahead.ts), and the warm pool. */
export const pool = new SandboxPool(newClient);
/** How many resolutions' sandboxes a worker keeps for its next scenarios, with reuseSandbox (each holds its desktop and browser: about 180 MB). */
const KEPT_RESOLUTIONS = 2;
const workerSandboxes = new KeptSandboxes(KEPT_RESOLUTIONS, (id) => pool.stop(id));

// The worker's first sandbox starts now, while Cucumber loads the features, with the profile's settings.
pool.startAheadOnce(plannedRun().then((plan) => {
  if (!plan?.runsScenarios) return null;
  const settings = scenarioSettings(plan.worldParameters, process.env, []);
  return settings.sandboxId ? null : settings.client;
})); // a bad setting starts nothing here: the first scenario fails with its message
/** Each scenario's vision-model calls, summed from its client's `ai:usage` events. */
const modelUsage = new WeakMap<GlanceWorld, UsageTotals>();
/** Where the current step's time went, from its client's commands. */
const stepTiming = new WeakMap<GlanceWorld, StepPhases>();

Before(async function (this: GlanceWorld, { pickle, gherkinDocument }) {
  await startScenario(this, pickle);
  const usage = noUsage();
  modelUsage.set(this, usage);
  this.client.getEmitter().on('ai:usage', (call) => addUsage(usage, call));
  const timeCommand = (command: CommandEvent) => { const phases = stepTiming.get(this); if (phases) addCommand(phases, command); };
  this.client.getEmitter().on('command:success', timeCommand).on('command:error', timeCommand);
  // The facts the report's metadata is made of (see lib/report/).
  const instance = this.client.getInstance()!;
  this.attach(sessionFactsText({ os: instance.os, resolution: instance.resolution, locator: this.client.getLocator(), sandbox: instance.instanceId }), 'text/plain');
  // The scenario's identity across runs, for a report published to a team server later.
  this.attach(evidenceAttachment({ kind: 'scenario', identity: scenarioIdentity({ pickle, gherkinDocument }) }), STEP_EVIDENCE);
});

async function startScenario(world: GlanceWorld, pickle: ITestCaseHookParameter['pickle']): Promise<void> {
  world.settings = scenarioSettings(world.parameters, process.env, pickle.tags.map((t) => t.name));
  // "Given the screen resolution is ..." (in a Background) must act before the sandbox starts.
  for (const step of pickle.steps) {
    const match = RESOLUTION_STEP.exec(step.text);
    if (match) world.settings.client.resolution = match[1].slice(1, -1);
  }
  const feature = path.resolve(pickle.uri);
  world.client = newClient({ cacheKey: fileCacheKey(feature), ...world.settings.client });
  world.client.setTestName(testName(pickle.uri, pickle.name));
  await world.client.auth();
  const keepAlive = world.settings.reuseSandbox ? REUSE_KEEP_ALIVE_MS : world.settings.keepAlive;
  const resolution = world.settings.client.resolution ?? '1366x768';
  if (world.settings.sandboxId) {
    await world.client.connect({ sandboxId: world.settings.sandboxId, keepAlive });
    return;
  }
  const kept = world.settings.reuseSandbox ? workerSandboxes.at(resolution) : null;
  if (kept) {
    if (await joinFresh(world.client, kept, keepAlive)) return workerSandboxes.use(kept, resolution);
    workerSandboxes.forget(kept); // gone: start a new one
  }
  const ahead = await pool.take(world.settings.client);
  const joined = ahead !== null && await joinFresh(world.client, ahead, keepAlive);
  const instance = joined ? world.client.getInstance()! : await world.client.connect({ newSandbox: true, keepAlive });
  if (world.settings.reuseSandbox) {
    await workerSandboxes.use(instance.instanceId, resolution);
  } else if (world.settings.warmSandboxes > 0) {
    pool.fill(world.settings.client, world.settings.warmSandboxes); // the next scenarios' start while this one runs
  }
}

// Screenshot names carry the line of the step in its feature file.
BeforeStep(function (this: GlanceWorld, { pickleStep, gherkinDocument }) {
  this.client?.setTestLine(stepLine(gherkinDocument, pickleStep.astNodeIds[0]) ?? null);
  stepTiming.set(this, noPhases());
});

// A failed step shows the screen it failed on (where the scenario last acted
// boxed in amber, the failed find's best candidate in red), what it looked for
// and what was there instead; with autoScreenshots every step shows its screen.
AfterStep(async function (this: GlanceWorld, { result, pickleStep }) {
  if (!this.client?.getInstance()) return;
  const timing = stepTiming.get(this);
  if (timing) this.attach(evidenceAttachment({ kind: 'timing', phases: rounded(timing) }), STEP_EVIDENCE);
  stepTiming.delete(this);
  if (result.status === Status.FAILED) {
    const at = Date.now();
    const find = this.lastFind;
    const missed = find && !find.found() ? find : null;
    const best = missed ? bestCandidate(missed.reason) : null;
    const acted = this.lastFound?.boundingBox ?? null;
    const boxes = [...(acted ? [{ box: acted, colour: LAST_ACTED }] : []), ...(best ? [{ box: best, colour: MISSED }] : [])];
    const picture = await this.client.reportPicture('failed', boxes);
    this.failedStep = { text: pickleStep.text, picture };
    this.attach(evidenceAttachment({
      kind: 'failure', at, error: (result.message ?? 'failed').split('\n')[0], picture,
      lookedFor: missed?.description ?? null, best, lastActed: acted ? { description: this.lastFound!.description, box: acted } : null,
      seenInstead: /seen instead: (.+)/.exec(missed?.reason ?? '')?.[1] ?? null,
    }), STEP_EVIDENCE);
  } else if (this.settings.client.autoScreenshots) {
    this.attach(evidenceAttachment({ kind: 'picture', title: `after '${pickleStep.text}'`, picture: await this.client.reportPicture('after step') }), STEP_EVIDENCE);
  }
});

const LAST_ACTED: [number, number, number] = [255, 150, 0];
const MISSED: [number, number, number] = [230, 30, 30];

After(async function (this: GlanceWorld, hook) {
  const { result, pickle, gherkinDocument } = hook;
  if (!this.client) return;
  const usage = modelUsage.get(this);
  if (usage?.calls) this.attach(usageText(usage), 'text/plain');
  try {
    if (result?.status === Status.PASSED) {
      await this.client.commitCache();
    } else {
      this.client.discardCache();
      if (result?.status === Status.FAILED) {
        this.client.markFailed(result.message?.split('\n')[0]);
        const id = this.client.getInstance()?.instanceId;
        if (this.settings.client.debugOnFailure && id) {
          // The kept sandbox is the failure's evidence: the next scenario must not reuse it, nor the worker stop it.
          workerSandboxes.forget(id);
          const line = scenarioLine(gherkinDocument, pickle);
          console.log(`[glance] Rejoin the failed sandbox with: GLANCE_SANDBOX_ID=${id} npx cucumber-js ${pickle.uri}${line ? `:${line}` : ''}`);
        }
      }
    }
  } finally {
    // Always: no sandbox is left without its keepAlive, whatever failed above.
    await this.client.disconnect();
  }
  // The scenario's dashcam clip, finished by disconnect().
  const clip = this.client.getRecording();
  if (clip) this.attach(evidenceAttachment({ kind: 'clip', ...clip }), STEP_EVIDENCE);
  // With a team server, the scenario goes to its console, evidence and all.
  const apiRoot = this.settings.client.apiRoot ?? process.env.GLANCE_API_ROOT;
  if (apiRoot) {
    await reportToServer({ apiRoot, stateDir: this.settings.client.stateDir ?? defaultStateDir(), hook, failedStep: this.failedStep, clip: clip?.file ?? null }, runId());
  }
});

AfterAll(async () => {
  await workerSandboxes.stopAll();
  await pool.drain();
  // The engines (OCR's worker threads) would stay for the next scenario's session a moment longer, and the process with them.
  if (clientsMade) await (require('../lib/service/local-service') as typeof import('../lib/service/local-service')).LocalService.shutdownEmbedded();
});

/** The line of a step in its feature file, in a scenario, a background or a rule. */
function stepLine(document: ITestCaseHookParameter['gherkinDocument'], stepId: string): number | undefined {
  const nodes = (document.feature?.children ?? []).flatMap((child) => (child.rule ? child.rule.children : [child]));
  const steps = nodes.flatMap((node) => node.scenario?.steps ?? node.background?.steps ?? []);
  return steps.find((step) => step.id === stepId)?.location.line;
}

/** The line of the scenario (or of its example row, for an outline) in the feature file. */
function scenarioLine(document: ITestCaseHookParameter['gherkinDocument'], pickle: ITestCaseHookParameter['pickle']): number | undefined {
  const [scenarioId, rowId] = pickle.astNodeIds;
  const nodes = (document.feature?.children ?? []).flatMap((child) => (child.rule ? child.rule.children : [child]));
  const scenario = nodes.find((node) => node.scenario?.id === scenarioId)?.scenario;
  const row = rowId ? scenario?.examples.flatMap((e) => e.tableBody).find((r) => r.id === rowId) : undefined;
  return (row ?? scenario)?.location.line;
}

/** A screenshot folder per scenario: feature and scenario name, numbered when an outline repeats the name. */
const testNames = new Map<string, number>();
function testName(uri: string, scenario: string): string {
  const name = `${path.basename(uri, '.feature')}-${scenario}`;
  const seen = (testNames.get(name) ?? 0) + 1;
  testNames.set(name, seen);
  return seen > 1 ? `${name}-${seen}` : name;
}
