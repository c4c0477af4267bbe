'use strict';
// An observer of paints, independent of Glance: its own X connection reads one
// region of the screen as fast as the X server answers, and notes each time its
// pixels change. "report" on stdin answers with the changes since the last
// report, as one JSON line: [{ at: epoch ms, hash }].
const crypto = require('crypto');
const readline = require('readline');
const x11 = require('x11');

const [display, x, y, width, height] = [process.argv[2], ...process.argv.slice(3, 7).map(Number)];
const now = () => performance.timeOrigin + performance.now();

x11.createClient({ display }, (error, screen) => {
  if (error) throw error;
  const X = screen.client;
  const root = screen.screen[0].root;
  let changes = [];
  let last = null;
  const look = () => X.GetImage(2, root, x, y, width, height, 0xffffffff, (err, image) => {
    if (err) throw err;
    const at = now();
    const hash = crypto.createHash('sha1').update(image.data).digest('hex');
    if (hash !== last) {
      changes.push({ at, hash });
      last = hash;
    }
    setImmediate(look);
  });
  look();
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line !== 'report') return;
    process.stdout.write(`${JSON.stringify(changes)}\n`);
    changes = [];
  }).on('close', () => process.exit(0));
  process.stdout.write('ready\n');
});
