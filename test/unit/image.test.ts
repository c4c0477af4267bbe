import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { debianMirror } from '../../lib/cli/image';
import { testFolder } from '../helpers/test-root';

// The image's base is made from the Debian archive apt already uses here.

const folders = testFolder('apt-');
after(() => fs.rmSync(folders, { recursive: true, force: true }));

function aptFolder(files: Record<string, string>): string {
  const etc = fs.mkdtempSync(path.join(folders, 'etc-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(etc, name)), { recursive: true });
    fs.writeFileSync(path.join(etc, name), text);
  }
  return etc;
}

test('the archive is read from deb822 .sources files, skipping stanzas of other suites', () => {
  const etc = aptFolder({
    'sources.list.d/debian.sources': 'Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\n\nTypes: deb\n# a comment\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n',
  });
  assert.equal(debianMirror(etc), 'http://mirror.example/debian');
});

test('the archive is read from a one-line sources.list, options and all', () => {
  const etc = aptFolder({ 'sources.list': '# deb http://old.example/debian buster main\ndeb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n' });
  assert.equal(debianMirror(etc), 'http://mirror.example/debian');
});

test('no bookworm archive: the error says where it looked and what to do instead', () => {
  const etc = aptFolder({ 'sources.list': 'deb http://mirror.example/debian trixie main\n' });
  assert.throws(() => debianMirror(etc), /No Debian bookworm archive is named in .*sources\.list.*--base debian:bookworm/);
});
