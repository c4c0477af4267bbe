import { EventEmitter } from 'events';
import { InvalidOptionError } from '../config/errors';
import type { CucumberJsonFeature } from './session-facts';

/**
 * A Cucumber message stream (the `message:` formatter's NDJSON) as the JSON
 * formatter would have written it during the run. Cucumber's own JSON
 * formatter does the work, fed the recorded envelopes, so the two outputs of
 * one run agree. `file` names the source in errors.
 */
export function messagesToJson(ndjson: string, file: string): CucumberJsonFeature[] {
  // Loaded here: only merging reads messages.
  const { JsonFormatter, formatterHelpers } = require('@cucumber/cucumber');
  const broadcaster = new EventEmitter();
  const stepDefinitions: { id: string; uri: string; line: number }[] = [];
  let written = '';
  let finished = false;
  new JsonFormatter({
    eventBroadcaster: broadcaster,
    eventDataCollector: new formatterHelpers.EventDataCollector(broadcaster),
    log: (text: string) => { written += text; },
    // What the JSON formatter reads of the support code: where each step definition is.
    supportCodeLibrary: { stepDefinitions },
    parsedArgvOptions: {},
    cleanup: async () => undefined,
  });
  const lines = ndjson.split('\n');
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let envelope: any;
    try {
      envelope = JSON.parse(line);
    } catch {
      throw new InvalidOptionError('merge', `${file}:${i + 1} is not a Cucumber message (not JSON). Give the file a 'message:FILE' format wrote, a Cucumber JSON file, or a reports folder.`);
    }
    if (envelope.stepDefinition) {
      const { id, sourceReference } = envelope.stepDefinition;
      stepDefinitions.push({ id, uri: sourceReference?.uri ?? '', line: sourceReference?.location?.line ?? 0 });
    }
    if (envelope.testRunFinished) finished = true;
    broadcaster.emit('envelope', envelope);
  });
  if (!finished) {
    throw new InvalidOptionError('merge', `${file} holds no finished run (no testRunFinished message): the shard was stopped before it ended, or the file was cut short. Rerun the shard, or merge its JSON report instead.`);
  }
  return JSON.parse(written) as CucumberJsonFeature[];
}
