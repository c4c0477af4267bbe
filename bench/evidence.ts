import fs from 'fs';
import path from 'path';
import { execFileSync } from 'child_process';
import { Client } from '../lib/sdk';
import type { CommandEvent } from '../lib/client/command-runner';
import { sleep } from '../lib/util/wait';
import { FIXTURES, newClient, testState } from '../test/helpers/glance';
import { Figure, figure, median, withRatio } from './stats';

const REDRAW_LAB = `file://${path.join(FIXTURES, 'redraw-lab.html')}`;
/** A spot of the redraw lab's page where a click changes nothing. */
const STILL = { x: 900, y: 700 };
const SLIDE = { x: 110, y: 50 };

async function onLab(state: ReturnType<typeof testState>, options: Parameters<typeof newClient>[1]): Promise<Client> {
  const client = newClient(state, options);
  await client.auth();
  await client.connect({ keepAlive: 0 });
  await client.provision.chrome({ url: REDRAW_LAB });
  return client;
}

/** Click times on the still spot, alternating between two clients so that both see the same machine load. */
async function pairedClicks(a: Client, b: Client, rounds: number): Promise<[number[], number[]]> {
  const times: [number[], number[]] = [[], []];
  const click = async (client: Client) => { const t = performance.now(); await client.click(STILL.x, STILL.y); return performance.now() - t; };
  for (let i = 0; i < 3; i++) { await click(a); await click(b); }
  for (let i = 0; i < rounds; i++) {
    times[0].push(await click(a));
    times[1].push(await click(b));
  }
  return times;
}

/** Paired differences: each sample of `a` minus the sample of `b` taken right after it. */
const differences = (a: number[], b: number[]) => a.map((v, i) => v - b[i]);

/** CPU time (ms) ffmpeg spends per second of recording, read from /proc over `seconds`. */
async function dashcamCpu(client: Client, seconds: number): Promise<number[]> {
  const display = client.getInstance()!.display!;
  const pid = execFileSync('pgrep', ['-f', `ffmpeg .*-i ${display} `], { encoding: 'utf8' }).trim().split('\n')[0];
  // utime and stime, fields 14 and 15 of /proc/PID/stat (counted after the command name's closing parenthesis).
  const ticks = () => {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  };
  const perTick = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const samples: number[] = [];
  for (let i = 0; i < seconds; i++) {
    const before = ticks();
    await sleep(1000);
    samples.push((ticks() - before) * perTick);
  }
  return samples;
}

/**
 * The evidence features' cost: autoScreenshots' overhead per command, the
 * time redraw detection adds to a click on a still page, a click that starts
 * a 300 ms animation (it must wait for the end), and the dashcam's CPU.
 */
export async function evidenceBench(): Promise<Figure[]> {
  const state = testState();
  const figures: Figure[] = [];

  // autoScreenshots: the same click with and without, redraw off to leave it out of both.
  const plain = await onLab(state, { redraw: false, dashcam: false });
  const shots = await onLab(state, { redraw: false, dashcam: false, autoScreenshots: true });
  const [shotTimes, plainTimes] = await pairedClicks(shots, plain, 30);
  await shots.disconnect();
  const plainFigure = figure('click, no autoScreenshots, no redraw (baseline)', plainTimes);
  figures.push(plainFigure, figure('click with autoScreenshots (before + after)', shotTimes));
  figures.push(figure('autoScreenshots overhead per command', differences(shotTimes, plainTimes), '<= 20'));

  // Redraw on a still page: what the wait adds to a click that changes nothing.
  const redraw = await onLab(state, { dashcam: false });
  const [redrawTimes, bareTimes] = await pairedClicks(redraw, plain, 30);
  await plain.disconnect();
  figures.push(figure('click with redraw detection, still page', redrawTimes));
  figures.push(figure('redraw: time added to a click on a still page', differences(redrawTimes, bareTimes), '<= 50'));

  // Redraw on a 300 ms animation: the click returns once it is over, and the screen then holds still.
  const animated: number[] = [];
  let stillAfter = 0;
  const events: CommandEvent[] = [];
  redraw.getEmitter().on('command:success', (e: CommandEvent) => events.push(e));
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await redraw.click(SLIDE.x, SLIDE.y); // opens: 300 ms
    animated.push(performance.now() - t);
    const a = await redraw.captureScreen();
    await sleep(100);
    if (a.data.equals((await redraw.captureScreen()).data)) stillAfter++;
    await redraw.click(SLIDE.x, SLIDE.y); // closes at once
    await sleep(100);
  }
  await redraw.disconnect();
  const settled = events.filter((e) => e.command === 'click' && e.redraw?.changed).length;
  figures.push({ ...figure('redraw: click that starts a 300 ms animation (returns when it is over)', animated, '>= 300'), samples: animated.length });
  if (stillAfter < animated.length || median(animated) < 300) {
    throw new Error(`redraw did not wait for the animation: ${stillAfter}/${animated.length} screens still after the click, median ${median(animated)} ms`);
  }
  if (settled < animated.length) throw new Error(`only ${settled} of ${animated.length} animated clicks saw their redraw`);

  // The dashcam: ffmpeg's CPU time per second of a still page, and per second of motion.
  const recorded = await onLab(state, { redraw: false });
  figures.push(figure('dashcam: ffmpeg CPU ms per second recorded, still page', await dashcamCpu(recorded, 5), '<= 150'));
  await recorded.disconnect();
  const clip = recorded.getRecording();
  if (!clip) throw new Error('the dashcam kept no clip');
  // What finishing and keeping the clip adds to disconnect().
  const disconnects = async (dashcam: boolean) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const client = newClient(state, { redraw: false, dashcam });
      await client.auth();
      await client.connect({ keepAlive: 60_000 });
      await sleep(1000);
      const t = performance.now();
      await client.disconnect();
      times.push(performance.now() - t);
    }
    return times;
  };
  const without = figure('disconnect, no dashcam', await disconnects(false));
  figures.push(without, withRatio(figure('disconnect with the dashcam (the clip finished and kept)', await disconnects(true)), without));
  return figures;
}
