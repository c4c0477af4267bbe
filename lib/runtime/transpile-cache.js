'use strict';
// Glance's own TypeScript tests and scripts, transpiled once and kept: the
// test runner starts a process per file, and loading the TypeScript compiler
// alone costs each of them 0.4 s. A file is transpiled again when its text,
// tsconfig.json, the compiler's version or the options below change; the
// compiler is loaded only then. The JavaScript carries an inline source map,
// so stack traces can name the TypeScript lines.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { root } = require('./compiled');

const cacheDir = path.join(root, 'node_modules', '.cache', 'glance-ts');
const tsconfigFile = path.join(root, 'tsconfig.json');
/** Raised when what the cache holds changes in a way the key cannot see (the options in load()). */
const FORMAT = 1;
/** Entries untouched for this long are removed by transpileAhead: what is still needed is transpiled again. */
const KEEP_MS = 7 * 24 * 3600 * 1000;
let salt = null;
let compiler = null;

/** What every transpiled file depends on besides its own text. */
function configSalt() {
  salt ??= [FORMAT, fs.readFileSync(tsconfigFile, 'utf8'), require('typescript/package.json').version].join('\0');
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
  compiler = (source, file) => {
    const { outputText, diagnostics } = ts.transpileModule(source, { compilerOptions, fileName: file, reportDiagnostics: true });
    const errors = (diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length) {
      const where = (d) => (d.file && d.start !== undefined ? `:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '');
      throw new SyntaxError(errors.map((d) => `${path.relative(root, file)}${where(d)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`).join('\n'));
    }
    return outputText;
  };
  return compiler;
}

/** The JavaScript of the TypeScript file `file`, from the cache when it is there; `touch` marks a cached entry as used. */
function transpiled(file, { touch = false } = {}) {
  const source = fs.readFileSync(file, 'utf8');
  const key = crypto.createHash('sha256').update(configSalt()).update('\0').update(file).update('\0').update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  try {
    const output = fs.readFileSync(cached, 'utf8');
    if (touch) fs.utimesSync(cached, new Date(), new Date());
    return output;
  } catch {
    const output = load()(source, file);
    try {
      // Written whole under another name first: a process started beside this one never reads half a file.
      fs.mkdirSync(cacheDir, { recursive: true });
      const partial = `${cached}.${process.pid}.tmp`;
      fs.writeFileSync(partial, output);
      fs.renameSync(partial, cached);
    } catch {
      /* a cache that cannot be written (a read-only checkout, a full disk) only costs the next process the compiler */
    }
    return output;
  }
}

/**
 * Transpiles the TypeScript files under `dirs` ahead, in this one process, so
 * that the processes run after it find them all done; and drops the entries
 * nothing has used for a week (old versions of files).
 */
function transpileAhead(dirs) {
  transpileUnder(dirs);
  const now = Date.now();
  for (const name of fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir) : []) {
    const file = path.join(cacheDir, name);
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && now - stat.mtimeMs > KEEP_MS) fs.rmSync(file, { force: true });
  }
}

function transpileUnder(dirs) {
  for (const dir of dirs) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) transpileUnder([file]);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) transpiled(file, { touch: true });
    }
  }
}

module.exports = { transpiled, transpileAhead };
