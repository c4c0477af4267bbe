import fs from 'fs';
import path from 'path';

/**
 * The variables a recorded scenario reads its secrets from: their names go
 * to `.env.example` (no values, for whoever runs the suite next); their
 * values go to `.env` only where the person agreed, and `.env` is kept out
 * of git.
 */

/** Adds `NAME=` lines for the names `.env.example` does not list yet; resolves to the names added. */
export function addExampleNames(dir: string, names: string[]): string[] {
  const file = path.join(dir, '.env.example');
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const listed = new Set(text.split(/\r?\n/).map((l) => /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(l)?.[1]).filter(Boolean));
  const added = names.filter((n) => !listed.has(n));
  if (added.length) fs.writeFileSync(file, `${text}${text && !text.endsWith('\n') ? '\n' : ''}${added.map((n) => `${n}=`).join('\n')}\n`);
  return added;
}

/** Writes the values into `.env` (replacing a name's old line), and makes sure git ignores `.env`. */
export function saveSecrets(dir: string, values: Record<string, string>): void {
  const file = path.join(dir, '.env');
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split(/\r?\n/) : [];
  for (const [name, value] of Object.entries(values)) {
    const line = `${name}=${dotenvQuoted(value)}`;
    const at = lines.findIndex((l) => new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`).test(l));
    if (at >= 0) lines[at] = line;
    else lines.splice(lines.length && lines[lines.length - 1] === '' ? lines.length - 1 : lines.length, 0, line);
  }
  fs.writeFileSync(file, `${lines.filter((l, i) => l !== '' || i < lines.length - 1).join('\n')}\n`, { mode: 0o600 });
  const ignore = path.join(dir, '.gitignore');
  const ignored = fs.existsSync(ignore) ? fs.readFileSync(ignore, 'utf8') : '';
  if (!ignored.split(/\r?\n/).some((l) => /^\/?\.env$/.test(l.trim()))) {
    fs.writeFileSync(ignore, `${ignored}${ignored && !ignored.endsWith('\n') ? '\n' : ''}.env\n`);
  }
}

/** A value as dotenv reads it back unchanged: single quotes keep everything, else backticks, else double quotes. */
function dotenvQuoted(value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  if (!value.includes('`')) return `\`${value}\``;
  return `"${value}"`;
}
