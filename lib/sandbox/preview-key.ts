import { createHmac } from 'crypto';

/**
 * The key of a sandbox's live preview: derived from the sandbox's token, so
 * only its holders can make it, yet it grants a view and no more. The
 * preview's URL carries it (after `#`, so it reaches no server log); the
 * token itself, which drives the sandbox, never leaves the client.
 */
export function previewKey(token: string): string {
  return createHmac('sha256', token).update('glance live preview').digest('base64url').slice(0, 32);
}
