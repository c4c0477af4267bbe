import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import os from 'os';
import path from 'path';
import { busy, parseSs } from '../../lib/sandbox/agent/network-watch';
import { changedShare, sampleFrame } from '../../lib/image/motion';
import { ffmpegArgs, maskArgs } from '../../lib/sandbox/agent/dashcam';
import { previewKey } from '../../lib/sandbox/preview-key';
import { ScreenshotFolder, slug } from '../../lib/client/screenshots';
import { Redactor } from '../../lib/client/redact';
import { noBrowserReason } from '../../lib/client/preview';
import { resolveClientOptions } from '../../lib/config/options';

const SS = `ESTAB 0      0               127.0.0.1:57294          127.0.0.1:8080 users:(("chromium",pid=1840,fd=20))
\t cubic wscale:10,10 rto:204 bytes_sent:5 bytes_received:5 lastsnd:900 lastrcv:800 lastack:800
ESTAB 0      0               127.0.0.1:8080          127.0.0.1:57294 users:(("python3",pid=1900,fd=4))
\t cubic rto:204 lastsnd:800 lastrcv:900 lastack:800
ESTAB 0      0               127.0.0.1:57300          127.0.0.1:9000 users:(("chromium",pid=1840,fd=21))
\t cubic rto:204 lastsnd:700 lastrcv:5000 lastack:700
LISTEN 0      511             127.0.0.1:8080          0.0.0.0:* users:(("python3",pid=1900,fd=3))
`;

test('network watch: reads ss, and tells a connection waiting for its answer from a quiet one', () => {
  const sockets = parseSs(SS);
  assert.equal(sockets.length, 4);
  assert.deepEqual(sockets[0], { pids: [1840], state: 'ESTAB', localPort: 57294, lastSend: 900, lastReceive: 800 });
  const listening = new Set([8080]);
  assert.equal(busy(sockets[0], listening), false, 'answered last: a kept-alive connection at rest');
  assert.equal(busy(sockets[1], listening), false, "the server's side of it, which answered last");
  assert.equal(busy(sockets[2], listening), true, 'sent a request 700 ms ago and heard nothing since');
  assert.equal(busy(sockets[3], listening), false, 'listening is not traffic');
  assert.equal(busy({ ...sockets[0], lastReceive: 100 }, listening), true, 'data within the quiet period');
  assert.equal(busy({ ...sockets[0], state: 'SYN-SENT' }, listening), true, 'still connecting');
});

test('redraw: a look samples 1 in 16 pixels, and the changed share counts them', () => {
  const width = 64;
  const height = 32;
  const data = Buffer.alloc(width * height * 4);
  const a = sampleFrame({ width, height, data });
  assert.equal(a.length, 16 * 8);
  const changed = Buffer.from(data);
  // The X byte (unused) does not count; a colour does.
  changed[3] = 0xff;
  assert.equal(changedShare(a, sampleFrame({ width, height, data: changed })), 0);
  for (let y = 0; y < height / 2; y++) for (let x = 0; x < width; x++) changed[(y * width + x) * 4] = 200;
  assert.equal(changedShare(a, sampleFrame({ width, height, data: changed })), 0.5);
});

test('dashcam: ffmpeg records x11grab at 10 fps into fragmented, flushed H.264 MP4', () => {
  const args = ffmpegArgs(':7', 1366, 768, '/tmp/clip.mp4').join(' ');
  assert.match(args, /-f x11grab -framerate 10 -video_size 1366x768 -i :7/);
  assert.match(args, /-c:v libx264 -preset ultrafast/);
  assert.match(args, /-movflags \+frag_keyframe\+empty_moov/);
  assert.match(args, /-flush_packets 1/);
});

test("dashcam: a secret's field is painted over the whole clip, out to even pixels on every side (the clip's chroma is halved)", () => {
  const args = maskArgs('/tmp/clip.mp4', [{ x: 201, y: 114, width: 301, height: 33 }, { x: 0, y: 0, width: 1, height: 0 }], '/tmp/out.mp4');
  assert.equal(args[args.indexOf('-vf') + 1], 'drawbox=x=200:y=114:w=302:h=34:color=gray:t=fill,drawbox=x=0:y=0:w=2:h=2:color=gray:t=fill');
  assert.deepEqual(args.slice(args.indexOf('-i'), args.indexOf('-i') + 2), ['-i', '/tmp/clip.mp4']);
  assert.equal(args.at(-1), '/tmp/out.mp4');
});

test('preview: the key is derived from the token, stable, and not the token', () => {
  const token = 'a-sandbox-token-0123456789abcdef';
  assert.equal(previewKey(token), previewKey(token));
  assert.notEqual(previewKey(token), previewKey(`${token}x`));
  assert.ok(!previewKey(token).includes(token.slice(0, 8)));
  assert.match(previewKey(token), /^[\w-]{32}$/);
});

test('preview: no browser in CI or without a display', () => {
  assert.match(noBrowserReason({ CI: 'true', DISPLAY: ':0', PATH: process.env.PATH })!, /CI/);
  assert.equal(noBrowserReason({ CI: 'false', DISPLAY: ':0', PATH: '/nonexistent' }), 'there is no xdg-open to open a browser with');
  assert.match(noBrowserReason({ PATH: process.env.PATH })!, /no display/);
});

test('screenshot names: numbered per test folder, phases, the line, a 30-character slug, secrets out; the folder cleared once', () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shots-'));
  try {
    const redactor = new Redactor();
    redactor.add('s3cret-value');
    const folder = new ScreenshotFolder(stateDir, redactor);
    const dir = path.join(stateDir, 'screenshots', 'checkout_pays');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'old.png'), '');
    folder.testName = 'checkout: pays';
    assert.ok(!fs.existsSync(path.join(dir, 'old.png')), 'cleared as the test starts');
    folder.testLine = 12;
    assert.equal(folder.nameFor('click', 'before', 'the s3cret-value field and a very long tail of words', null), 'checkout_pays/0001-click-before-L12-the_secret_field_and_a_very_lo.png');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'keep.png'), '');
    const again = new ScreenshotFolder(stateDir, redactor);
    again.testName = 'checkout: pays';
    assert.ok(fs.existsSync(path.join(dir, 'keep.png')), 'cleared once a run: a second client of the same test keeps the first one\'s files');
    assert.equal(again.nameFor('type', 'error', '', null), 'checkout_pays/0002-type-error.png', 'numbers go on across clients');
    assert.equal(slug('a/b\\c:d', 30), 'a_b_c_d');
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});

test('options: dashcam, redraw and analytics default on; redraw.timeout is bounded; preview defaults to browser', () => {
  const o = resolveClientOptions({});
  assert.equal(o.dashcam, true);
  assert.equal(o.analytics, true);
  assert.deepEqual(o.redraw, { enabled: true, thresholds: { screen: 0.05, network: false }, timeout: 3000 });
  assert.equal(o.preview, 'browser');
  assert.throws(() => resolveClientOptions({ redraw: { timeout: 120_000 } }), /redraw\.timeout/);
  assert.throws(() => resolveClientOptions({ redraw: { thresholds: { network: 'yes' as unknown as boolean } } }), /redraw\.thresholds\.network/);
});
