import fs from 'fs';
import os from 'os';
import path from 'path';
import { spawn, spawnSync } from 'child_process';
import { InvalidOptionError, SandboxError } from '../config/errors';
import { GLANCE_VERSION } from '../util/version';
import { knownFlags, parseFlags } from './flags';

/** The image sandboxes of the docker backend run, unless GLANCE_SANDBOX_IMAGE names another. */
export const DEFAULT_IMAGE = `glance-sandbox:${GLANCE_VERSION}`;
/** The Debian root filesystem made here when no --base is given. */
const LOCAL_BASE = 'glance-debian-base:bookworm';
const SUITE = 'bookworm';
/** The longest a step may take: a first build downloads Chromium and its libraries. */
const STEP_BOUND_MS = 30 * 60_000;
/** The package's own folder: dist/lib/cli is three folders below it. */
const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * `glance image build [--tag T] [--base IMAGE] [--node PATH]`: builds the
 * sandbox image with Docker from deploy/Dockerfile. With no registry to pull
 * from, the base is a Debian root filesystem made with debootstrap from the
 * archive apt uses here, imported once with `docker import`.
 */
export async function imageCommand(args: string[]): Promise<number> {
  const { flags, words } = parseFlags(args);
  if (words[0] !== 'build') throw new InvalidOptionError('image', `glance image takes 'build' (got '${words[0] ?? ''}'): glance image build [--tag ${DEFAULT_IMAGE}] [--base IMAGE] [--node PATH].`);
  knownFlags('image build', flags, ['tag', 'base', 'node']);
  const tag = typeof flags.tag === 'string' ? flags.tag : DEFAULT_IMAGE;
  const node = typeof flags.node === 'string' ? path.resolve(flags.node) : process.execPath;
  if (!fs.existsSync(node)) throw new InvalidOptionError('node', `--node names ${node}, which does not exist. Give the path of a Node ${process.versions.node.split('.')[0]}+ binary for Linux x64, or leave it out to use the one running this build.`);
  requireDocker();
  const base = typeof flags.base === 'string' ? flags.base : await localBase();
  const context = stageContext(node);
  try {
    await run('docker', ['build', '--network', 'host', '--build-arg', `BASE=${base}`, '--tag', tag, '--file', path.join(context, 'Dockerfile'), context], 'docker build');
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  console.log(`image: ${tag} (base ${base}, Node ${nodeVersion(node)})`);
  return 0;
}

function requireDocker(): void {
  const probe = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8', timeout: 15_000 });
  if (probe.error) throw new SandboxError("Docker's command was not found. Install it with 'apt-get install docker.io'.");
  if (probe.status !== 0) throw new SandboxError(`Docker's engine does not answer (${probe.stderr.trim().split('\n')[0]}). Start it ('dockerd &' as root, or 'systemctl start docker'), then build again.`);
}

/** The local Debian base, made with debootstrap on first use. */
async function localBase(): Promise<string> {
  if (spawnSync('docker', ['image', 'inspect', LOCAL_BASE], { stdio: 'ignore' }).status === 0) return LOCAL_BASE;
  if (spawnSync('debootstrap', ['--version'], { stdio: 'ignore' }).error) {
    throw new SandboxError("No base image: 'debootstrap' makes one from Debian's archive, and it is not installed. Install it with 'apt-get install debootstrap', or give a registry image with --base debian:bookworm.");
  }
  const mirror = debianMirror();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-rootfs-'));
  try {
    console.log(`image: making a Debian ${SUITE} root filesystem from ${mirror}`);
    await run('debootstrap', ['--variant=minbase', SUITE, root, mirror], 'debootstrap');
    await run('sh', ['-c', `tar -C "$1" -c . | docker import - "$2"`, 'import', root, LOCAL_BASE], 'docker import');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return LOCAL_BASE;
}

/** The Debian archive apt uses on this machine (deb822 .sources files, or sources.list lines). */
export function debianMirror(etc = '/etc/apt'): string {
  const texts: string[] = [];
  const list = path.join(etc, 'sources.list');
  if (fs.existsSync(list)) texts.push(fs.readFileSync(list, 'utf8'));
  const dir = path.join(etc, 'sources.list.d');
  if (fs.existsSync(dir)) for (const f of fs.readdirSync(dir).sort()) texts.push(fs.readFileSync(path.join(dir, f), 'utf8'));
  for (const text of texts) {
    const oneLine = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(text);
    if (oneLine) return oneLine[1];
    for (const stanza of text.split(/\n\s*\n/)) {
      const uri = /^URIs:\s*(\S+)/m.exec(stanza)?.[1];
      const suites = /^Suites:\s*(.+)$/m.exec(stanza)?.[1].split(/\s+/) ?? [];
      if (uri && suites.includes(SUITE)) return uri;
    }
  }
  throw new SandboxError(`No Debian ${SUITE} archive is named in ${etc}/sources.list or ${etc}/sources.list.d/. Add one, or give a registry image with --base debian:bookworm.`);
}

/** The build context: the Dockerfile, the Node binary, Glance's dependencies and Glance itself, each in its own layer. */
function stageContext(node: string): string {
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'glance-image-'));
  fs.copyFileSync(path.join(PACKAGE_ROOT, 'deploy', 'Dockerfile'), path.join(context, 'Dockerfile'));
  fs.copyFileSync(node, path.join(context, 'node'));
  fs.mkdirSync(path.join(context, 'deps'));
  copyTree(dependenciesFolder(), path.join(context, 'deps', 'node_modules'));
  const app = path.join(context, 'app');
  for (const entry of ['package.json', 'bin', 'dist', 'support', 'lib/index.js', 'lib/runtime']) {
    const from = path.join(PACKAGE_ROOT, entry);
    if (fs.existsSync(from)) copyTree(from, path.join(app, entry));
  }
  return context;
}

/** Where Glance's dependencies are installed: its own node_modules, or the project's it was hoisted into. */
function dependenciesFolder(): string {
  return path.dirname(path.dirname(require.resolve('fastify/package.json')));
}

/** Hard links where the file system allows (node_modules is large), copies where not. */
function copyTree(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  if (spawnSync('cp', ['-al', from, to], { stdio: 'ignore' }).status !== 0) fs.cpSync(from, to, { recursive: true });
}

function nodeVersion(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** Runs a step with its output shown, bounded by STEP_BOUND_MS. */
function run(command: string, args: string[], label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_BOUND_MS);
    child.once('error', (error) => { clearTimeout(timer); reject(new SandboxError(`${label} could not start: ${error.message}`)); });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new SandboxError(`${label} failed (${signal ? `ended by ${signal} after the ${STEP_BOUND_MS / 60_000} min bound` : `exit code ${code}`}); its output is above.`));
    });
  });
}
