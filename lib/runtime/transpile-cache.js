'use strict';
// Glance's own TypeScript tests and scripts, transpiled once and kept: the
// test runner starts a process per file, and loading the TypeScript compiler
// alone costs each of them 0.4 s. A file is transpiled again when its text,
// tsconfig.json or the compiler's version changes; the compiler is loaded only
// then. The JavaScript carries a source map, so stack traces name the
// TypeScript lines.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { root } = require('./compiled');

const cacheDir = path.join(root, 'node_modules', '.cache', 'glance-ts');
const tsconfigFile = path.join(root, 'tsconfig.json');
let salt = null;
let compiler = null;

/** What every transpiled file depends on besides its own text. */
function configSalt() {
  salt ??= [fs.readFileSync(tsconfigFile, 'utf8'), require('typescript/package.json').version].join('\0');
  return salt;
}

function load() {
  if (compiler) return compiler;
  const ts = require('typescript');
  const { config, error } = ts.readConfigFile(tsconfigFile, ts.sys.readFile);
  if (error) throw new Error(`${tsconfigFile}: ${ts.flattenDiagnosticMessageText(error.messageText, '\n')}`);
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
  // No outDir: the source map names the file beside the JavaScript's own path, which is the TypeScript file's.
  const compilerOptions = { ...options, outDir: undefined, rootDir: undefined, declaration: false, sourceMap: false, inlineSourceMap: true, inlineSources: false };
  compiler = (source, file) => ts.transpileModule(source, { compilerOptions, fileName: file }).outputText;
  return compiler;
}

/** The JavaScript of the TypeScript file `file`, from the cache when it is there. */
function transpiled(file) {
  const source = fs.readFileSync(file, 'utf8');
  const key = crypto.createHash('sha256').update(configSalt()).update('\0').update(file).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    const output = load()(source, file);
    // Written whole under another name first: a process started beside this one never reads half a file.
    fs.mkdirSync(cacheDir, { recursive: true });
    const partial = `${cached}.${process.pid}.tmp`;
    fs.writeFileSync(partial, output);
    fs.renameSync(partial, cached);
    return output;
  }
}

/** Entries older than this are removed by transpileAhead: what is still needed is transpiled again. */
const KEEP_MS = 7 * 24 * 3600 * 1000;

/**
 * Transpiles the TypeScript files under `dirs` ahead, in this one process, so
 * that the processes run after it find them all done; and drops the entries
 * of old versions of files, which nothing reads again.
 */
function transpileAhead(dirs) {
  transpileUnder(dirs);
  const now = Date.now();
  for (const name of fs.readdirSync(cacheDir)) {
    const file = path.join(cacheDir, name);
    if (now - fs.statSync(file).mtimeMs > KEEP_MS) fs.rmSync(file, { force: true });
  }
}

function transpileUnder(dirs) {
  for (const dir of dirs) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) transpileUnder([file]);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) transpiled(file);
    }
  }
}

module.exports = { transpiled, transpileAhead };
