import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';

// The map of lib/ (ARCHITECTURE.md), top to bottom. A folder may import only
// from folders in lower rows; folders in one row do not import each other.
const LAYERS: string[][] = [
  ['cli'],
  ['client', 'server'],
  ['service'],
  ['locate', 'cache'],
  ['report', 'sandbox'],
  ['store', 'image'],
  ['config', 'util'],
  ['types', 'runtime'],
];

const LIB = path.resolve(__dirname, '..', '..', 'lib');
const rank = new Map(LAYERS.flatMap((row, i) => row.map((folder) => [folder, i] as const)));

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every lib folder a file imports from (static imports, re-exports, dynamic imports and requires). */
function importedFolders(file: string): { folder: string; spec: string }[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)['"](\.[^'"]+)['"]/gm)].map((m) => m[1]);
  return specs.map((spec) => {
    const target = path.relative(LIB, path.resolve(path.dirname(file), spec));
    return { folder: target.startsWith('..') ? '(outside lib)' : target.split(path.sep)[0], spec };
  });
}

const folderOf = (file: string) => path.relative(LIB, file).split(path.sep)[0];

/** The imports of `file` that reach a folder above or beside its own in the map. */
function wrongImports(file: string): string[] {
  const from = folderOf(file);
  if (!rank.has(from)) return []; // lib/index.js, lib/sdk.ts: the package entries sit above every layer
  return importedFolders(file)
    .filter(({ folder }) => folder !== from && (!rank.has(folder) || rank.get(folder)! <= rank.get(from)!))
    .map(({ folder, spec }) => `${path.relative(LIB, file)} imports '${spec}' (${folder})`);
}

test('every folder of lib/ has a place in the map', () => {
  const folders = fs.readdirSync(LIB, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  const unmapped = folders.filter((f) => !rank.has(f));
  assert.deepEqual(unmapped, [], `add these folders to LAYERS (and to ARCHITECTURE.md): ${unmapped.join(', ')}`);
});

test('no folder of lib/ imports a folder above it or beside it in the map', () => {
  assert.deepEqual(sources(LIB).flatMap(wrongImports), []);
});

test('the client reaches locating and the cache only through the Service', () => {
  const reaching = sources(path.join(LIB, 'client')).flatMap((file) =>
    importedFolders(file).filter((i) => i.folder === 'locate' || i.folder === 'cache').map((i) => `${path.relative(LIB, file)} → ${i.spec}`));
  assert.deepEqual(reaching, []);
});

test('the checker sees imports: a made-up upward import is caught', () => {
  const dir = fs.mkdtempSync(path.join(LIB, 'util', '.layers-'));
  const probe = path.join(dir, 'probe.ts');
  try {
    fs.writeFileSync(probe, "import { Client } from '../../client/client';\nimport { sleep } from '../wait';\n");
    assert.deepEqual(wrongImports(probe), [`${path.relative(LIB, probe)} imports '../../client/client' (client)`]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
