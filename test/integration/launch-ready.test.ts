import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '../../lib/sdk';
import type { A11ySnapshot } from '../../lib/types/a11y';
import { cleanupAfterFile, sandboxTurns, testState } from '../helpers/glance';
import { waitFor } from '../../lib/util/wait';

/** A program is ready before the first key: typing straight after a launch never loses one. */
const state = testState();
// The tests take turns in one sandbox, each joining it fresh: its programs closed.
const join = sandboxTurns(state, cleanupAfterFile(state, after));
const connected = () => join({ dashcam: false, redraw: false });

const snapshot = (client: Client) => client.requireAgent().call<A11ySnapshot>('POST', '/a11y', { deadlineMs: 2000 });

/** A Tk entry, which publishes no tree: it writes what it holds to a file at every key, so the test reads what arrived. */
const TK_ENTRY = `python3 -c "
import tkinter as tk, os
root = tk.Tk(); root.title('Tk entry'); root.geometry('400x80+50+50')
e = tk.Entry(root, width=40); e.pack(padx=10, pady=20); e.focus_set()
def save(_): open(os.path.expanduser('~/typed.txt'), 'w').write(e.get())
e.bind('<KeyRelease>', save)
root.mainloop()"`;

test('typing straight after a launch reaches the program, three times in a row, in GTK, Qt and Tk', async () => {
  const client = await connected();
  const typed = 'Ada Lovelace 1815';
  for (let round = 1; round <= 3; round++) {
    await client.provision.app({ command: `zenity --entry --title 'Round ${round}' --text 'Name'` });
    await client.type(typed);
    const entry = (await snapshot(client)).nodes.find((n) => n.role === 'text' || n.role === 'entry');
    assert.equal(entry?.value, typed, `GTK round ${round}: every key arrived`);

    await client.provision.app({ command: 'featherpad --standalone' });
    await client.type(typed);
    const editor = (await snapshot(client)).nodes.find((n) => n.states.includes('multi-line') && n.states.includes('editable'));
    assert.equal(editor?.value, typed, `Qt round ${round}: every key arrived`);

    await client.provision.app({ command: TK_ENTRY });
    await client.type(typed);
    // Tk writes the entry out as it handles each key, a moment after the keys were sent.
    const arrived = () => client.exec('sh', 'cat "$HOME/typed.txt" 2>/dev/null || true');
    await waitFor(`Tk round ${round} to hold every key`, async () => (await arrived()) === typed, { timeoutMs: 3000, intervalMs: 50 })
      .catch(async () => assert.equal(await arrived(), typed, `Tk round ${round}: every key arrived`));
    await client.resetApps();
  }
  await client.disconnect();
});

test('a launch knows from the accessibility bus whether the program publishes a tree, without waiting for one that never comes', async () => {
  const client = await connected();
  const launch = (command: string) => client.requireAgent().call<{ tree?: string }>('POST', '/launch/app', { command, timeout: 15_000 }, 20_000);
  assert.equal((await launch(TK_ENTRY)).tree, 'none', 'Tk is not on the accessibility bus');
  await client.resetApps();
  assert.equal((await launch(`zenity --entry --title 'Tree' --text 'Name'`)).tree, 'focused', 'GTK publishes its focused field');
  await client.disconnect();
});

test('a program whose first window is a dialog is named in the log; one with no window fails with its output', async () => {
  const client = await connected();
  const lines: string[] = [];
  client.getEmitter().on('log:info', (line: string) => lines.push(line));
  await client.provision.app({ command: "zenity --question --title 'Restore session?' --text 'The previous session did not end normally.'" });
  assert.ok(lines.some((l) => /opened a dialog first: 'Restore session\?'/.test(l)), lines.join('\n'));

  await assert.rejects(client.provision.app({ command: "echo 'cannot open the display' >&2; sleep 30", timeout: 1500 }), (e: Error) =>
    /opened no window within 1\.5 s/.test(e.message) && /cannot open the display/.test(e.message));
  await assert.rejects(client.provision.app({ command: 'echo "handed over to nobody"; exit 0', timeout: 1500 }), (e: Error) =>
    /exited with code 0, and nothing it started opened one/.test(e.message) && /handed over to nobody/.test(e.message));
  // A launcher that forks and exits 0 is followed through its child: its window counts.
  await client.provision.app({ command: 'xmessage -geometry +600+300 "from the child" & exit 0' });
  const windows = await client.requireAgent().call<{ title: string; className: string }[]>('GET', '/windows');
  assert.ok(windows.some((w) => /xmessage/i.test(w.className)), JSON.stringify(windows));
  await client.disconnect();
});

/** A Tk window titled `title`: Tk sets no _NET_WM_PID, so its windows say nothing of their process. */
const tkWindow = (title: string) => `python3 -c "import tkinter as tk; r = tk.Tk(); r.title('${title}'); r.geometry('300x80+60+60'); tk.Label(r, text='${title}').pack(); r.mainloop()"`;

test("a program started again as the old one ends is a new window, though X gives it the old window's id", async () => {
  const client = await connected();
  const windows = () => client.requireAgent().call<{ id: number; title: string }[]>('GET', '/windows');
  await client.provision.app({ command: tkWindow('Tk first') });
  const first = (await windows()).find((w) => w.title === 'Tk first');
  assert.ok(first, 'the first program has its window');
  // The launch lists the windows before it runs the command, which then ends the first program and starts the
  // same one again: X gives the new window the id the first one had. ('[f]' keeps pkill off this shell's own line.)
  await client.provision.app({ command: `pkill -f 'Tk [f]irst'; sleep 0.5; exec ${tkWindow('Tk second')}`, timeout: 10_000 });
  const now = await windows();
  assert.deepEqual(now.map((w) => w.title), ['Tk second'], 'the first window is gone, the second is up');
  assert.equal(now[0].id, first.id, 'X gave the second window the first one\'s id, as it does for a program started again');
  await client.disconnect();
});

test('keys with no window in focus fail with what to do, instead of going nowhere; about:blank is a loaded page', async () => {
  const client = await connected();
  await assert.rejects(client.type('lost'), /No window has the keyboard focus, so the typed text would go nowhere\. No window is open/);
  await assert.rejects(client.pressKeys(['ctrl+a']), /No window has the keyboard focus, so the keys 'ctrl\+a' would go nowhere/);
  await client.provision.chrome({ url: 'about:blank' });
  await client.type('now it has a window');
  await client.disconnect();
});
