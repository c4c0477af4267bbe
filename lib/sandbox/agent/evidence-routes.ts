import fs from 'fs';
import path from 'path';
import type http from 'http';
import { Dashcam } from './dashcam';
import { RedrawRequest, RedrawWatch } from './redraw';

type Body = Record<string, any>;
type Handler = (body: Body, url: URL, res: http.ServerResponse) => Promise<unknown>;

/** A bad request: the agent's server answers it with this status. */
class RouteError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const MARK_ID = /^[\w-]{1,64}$/;

function markId(body: Body): string {
  if (typeof body.id !== 'string' || !MARK_ID.test(body.id)) throw new RouteError(400, `'id' must be letters, digits, '_' or '-', got ${JSON.stringify(body.id)}`);
  return body.id;
}

function redrawRequest(body: Body): RedrawRequest {
  const { threshold, network, timeoutMs } = body;
  if (!(threshold === false || (typeof threshold === 'number' && threshold >= 0 && threshold <= 1))) throw new RouteError(400, `'threshold' must be 0-1 or false, got ${JSON.stringify(threshold)}`);
  if (typeof network !== 'boolean') throw new RouteError(400, `'network' must be true or false, got ${JSON.stringify(network)}`);
  if (typeof timeoutMs !== 'number' || !(timeoutMs >= 0 && timeoutMs <= 60_000)) throw new RouteError(400, `'timeoutMs' must be 0-60000, got ${JSON.stringify(timeoutMs)}`);
  return { threshold, network, timeoutMs };
}

/**
 * The agent's evidence routes: the dashcam (start a clip, stop it, fetch it)
 * and redraw detection (mark the screen before an action, wait after it).
 */
export function evidenceRoutes(dashcam: Dashcam, redraw: RedrawWatch): Record<string, Handler> {
  return {
    'POST /dashcam/start': async (body) => {
      try {
        return await dashcam.start(typeof body.name === 'string' ? body.name : '');
      } catch (error) {
        throw new RouteError((error as { status?: number }).status ?? 500, (error as Error).message);
      }
    },
    'POST /dashcam/stop': async () => ({ clip: await dashcam.stop() }),
    'POST /dashcam/mask': async (body) => {
      const box = body.box as Record<string, unknown> | undefined;
      if (!box || !['x', 'y', 'width', 'height'].every((k) => typeof box[k] === 'number' && Number.isFinite(box[k]))) throw new RouteError(400, `'box' must be {x, y, width, height} in numbers, got ${JSON.stringify(body.box)}`);
      return { masked: dashcam.mask({ x: box.x as number, y: box.y as number, width: box.width as number, height: box.height as number }) };
    },
    'GET /dashcam/clip': async (_body, url, res) => {
      const name = url.searchParams.get('name') ?? '';
      if (!/^[\w.-]{1,120}$/.test(name)) throw new RouteError(400, `no clip named '${name}'`);
      const file = path.join(dashcam.dir, `${name}.mp4`);
      if (!fs.existsSync(file)) throw new RouteError(404, `no clip named '${name}'`);
      const data = fs.readFileSync(file);
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': data.length });
      res.end(data);
      return undefined;
    },
    'POST /redraw/mark': async (body) => {
      await redraw.mark(markId(body));
      return { ok: true };
    },
    'POST /redraw/wait': async (body) => redraw.wait(markId(body), redrawRequest(body)),
  };
}
