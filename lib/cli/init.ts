import fs from 'fs';
import path from 'path';
import dotenv from 'dotenv';
import { openDb } from '../store/db';
import { createApiKey, findKey, keyHint } from '../service/api-keys';
import { parseFlags } from './flags';
import { DEFAULT_STATE_DIR, defaultStateDir } from '../config/state-dir';

/**
 * `glance init`: the state database, a team and an API key. The key goes to
 * .env as GLANCE_API_KEY; .env and the state folder (.glance/, when it is
 * inside the project) are added to .gitignore.
 * Idempotent: a valid key already in .env is kept unless --force.
 */
export async function initCommand(args: string[]): Promise<number> {
  const { flags } = parseFlags(args);
  const dir = defaultStateDir();
  const db = openDb(dir);
  try {
    const envFile = path.resolve('.env');
    const existing = fs.existsSync(envFile) ? dotenv.parse(fs.readFileSync(envFile)).GLANCE_API_KEY : undefined;
    if (existing && findKey(db, existing) && !flags.force) {
      console.log(`Glance is set up: ${envFile} holds a valid API key (${keyHint(existing)}). Use --force for a new one.`);
    } else {
      const { key } = createApiKey(db);
      writeEnvValue(envFile, 'GLANCE_API_KEY', key);
      console.log(`Created API key ${keyHint(key)} and wrote it to ${envFile} as GLANCE_API_KEY.`);
    }
    // The state folder is ignored only where it is inside the project: one elsewhere (GLANCE_STATE_DIR=/var/glance) has no line to write.
    const stateInProject = path.relative('.', dir);
    const inside = !stateInProject.startsWith('..') && !path.isAbsolute(stateInProject);
    ensureIgnored(path.resolve('.gitignore'), ['.env', ...(inside ? [`${stateInProject || DEFAULT_STATE_DIR}/`] : [])]);
    return 0;
  } finally {
    db.close();
  }
}

function writeEnvValue(file: string, name: string, value: string): void {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => !l.startsWith(`${name}=`)) : [];
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  lines.push(`${name}=${value}`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
}

function ensureIgnored(file: string, entries: string[]): void {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const present = new Set(current.split('\n').map((l) => l.trim()));
  const missing = entries.filter((e) => !present.has(e) && !present.has(e.replace(/\/$/, '')));
  if (missing.length) fs.writeFileSync(file, `${current}${current && !current.endsWith('\n') ? '\n' : ''}${missing.join('\n')}\n`);
}
