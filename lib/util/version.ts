import fs from 'fs';
import path from 'path';

/**
 * Glance's version, from its package.json (found upward from here, whether
 * this runs from lib/ or from the build in dist/), and the wire protocol that
 * the client, the team server and the agent must share.
 */
export const WIRE_PROTOCOL = 1;

function readVersion(): string {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'glance' && pkg.version) return pkg.version;
  }
  return '0.0.0';
}

export const GLANCE_VERSION = readVersion();

/** The versions one side states at connect. */
export interface VersionInfo {
  glance: string;
  protocol: number;
}

export const OWN_VERSION: VersionInfo = { glance: GLANCE_VERSION, protocol: WIRE_PROTOCOL };

/** Null when two sides can talk; else a sentence that names both sides' versions and the fix. */
export function versionMismatch(mine: VersionInfo, myRole: string, theirs: VersionInfo, theirRole: string): string | null {
  if (theirs.protocol === mine.protocol) return null;
  return `The ${myRole} runs Glance ${mine.glance} (protocol ${mine.protocol}), but the ${theirRole} runs Glance ${theirs.glance} (protocol ${theirs.protocol}). Install the same Glance version on both.`;
}
