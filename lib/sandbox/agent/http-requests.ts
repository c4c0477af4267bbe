import http from 'http';
import { timingSafeEqual } from 'crypto';

/**
 * What the agent's two HTTP servers (its API and the live preview) read from
 * a request: a secret compared in constant time, the bearer token, the body.
 */

/** Whether `given` is the secret, compared in time that does not tell how much of it matched. */
export function sameSecret(given: string | null | undefined, secret: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer …` header, or '' without one. */
export function bearerToken(req: http.IncomingMessage): string {
  const header = req.headers.authorization ?? '';
  return header.startsWith('Bearer ') ? header.slice(7) : '';
}

/**
 * The body of a request, up to `max` bytes; null when it is longer, or when
 * the request broke off. A body past the bound is read on and dropped, so the
 * refusal still reaches the client.
 */
export function readBody(req: http.IncomingMessage, max: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= max ? Buffer.concat(chunks) : null));
    req.on('error', () => resolve(null));
  });
}
