import { createHmac, randomBytes, timingSafeEqual } from 'crypto';
import { AuthError } from '../config/errors';
import { Db } from '../store/db';

/**
 * Session tokens: `base64url(claims).base64url(HMAC-SHA256)`, signed with a
 * secret kept in the state database, and valid for a limited time.
 */
export interface TokenClaims {
  team: number;
  key: number;
  /** A token for one sandbox's agent, through the team server: it opens nothing else. */
  sandbox?: string;
  /** Issued and expiry times, ms since the epoch. */
  iat: number;
  exp: number;
}

/** The embedded Service's tokens never leave the process; the team server's last an hour (`glance serve --token-ttl`). */
export const DEFAULT_TOKEN_TTL_MS = 12 * 60 * 60 * 1000;

export function signingSecret(db: Db): Buffer {
  const row = db.prepare("SELECT value FROM secrets WHERE name = 'token-signing'").get() as { value: Buffer } | undefined;
  if (row) return row.value;
  db.prepare("INSERT OR IGNORE INTO secrets (name, value) VALUES ('token-signing', ?)").run(randomBytes(32));
  return signingSecret(db);
}

function sign(secret: Buffer, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

export function issueToken(secret: Buffer, claims: Omit<TokenClaims, 'iat' | 'exp'>, ttlMs = DEFAULT_TOKEN_TTL_MS, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ ...claims, iat: now, exp: now + ttlMs })).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

export function verifyToken(secret: Buffer, token: unknown, now = Date.now()): TokenClaims {
  const reauth = 'Call auth() again to get a fresh token.';
  if (typeof token !== 'string' || !/^[\w-]+\.[\w-]+$/.test(token)) throw new AuthError(`The session token is malformed. ${reauth}`);
  const [payload, signature] = token.split('.');
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AuthError(`The session token's signature is invalid (was it issued by another Glance state folder?). ${reauth}`);
  }
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
  if (!(claims.exp > now)) throw new AuthError(`The session token expired at ${new Date(claims.exp).toISOString()}. ${reauth}`);
  return claims;
}
