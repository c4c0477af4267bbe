/**
 * The live preview page: the sandbox's screen through noVNC (view only) and
 * the test's command log as it happens. It holds no secret: the key comes in
 * the URL's fragment (`#key=…`), and without it the page says so and stops.
 * `&fit=0` shows the screen at its own size instead of fitting the window.
 *
 * While a recording runs, the screen takes the person's input, and the
 * recording panel lists the steps (each with its picture), with tools: the
 * checks and hover by pointing (the click then goes to the recorder, not to
 * the app), delete, re-pick and undo, the suggested checks, and Stop.
 */
export function previewPage(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
  html, body { margin: 0; height: 100%; background: #1e1e1e; color: #ddd; font: 13px/1.4 ui-monospace, monospace; }
  body { display: flex; }
  #screen { flex: 1; min-width: 0; overflow: auto; }
  #side { width: 380px; display: flex; flex-direction: column; border-left: 1px solid #444; }
  #status { padding: 6px 8px; background: #2d2d2d; }
  #log { flex: 1; margin: 0; padding: 6px 8px; overflow: auto; white-space: pre-wrap; word-break: break-word; }
  .error { color: #f88; } .success { color: #9d9; } .start { color: #aaa; }
  #recording { display: none; flex-direction: column; max-height: 70%; border-bottom: 1px solid #444; }
  body[data-recording="on"] #recording, body[data-recording="off"] #recording { display: flex; }
  #tools { display: flex; flex-wrap: wrap; gap: 4px; padding: 6px 8px; }
  #tools button, #steps button, #suggestions button { font: inherit; background: #333; color: #ddd; border: 1px solid #555; border-radius: 3px; padding: 2px 6px; cursor: pointer; }
  #tools button.on { background: #2f5d8a; border-color: #6af; }
  #stop { background: #7a2d2d !important; }
  #hint { padding: 0 8px; color: #fc6; min-height: 1.4em; }
  #notice { padding: 0 8px; color: #f88; }
  #steps { flex: 1; overflow: auto; margin: 0; padding: 4px 8px 4px 30px; }
  #steps li { margin: 6px 0; }
  #steps .flag { color: #fc6; }
  #steps img { display: block; max-width: 100%; margin: 3px 0; border: 1px solid #444; }
  #suggestions { padding: 4px 8px; color: #aaa; }
  body[data-mode]:not([data-mode="use"]) #screen { cursor: crosshair; }
</style>
</head>
<body>
<div id="screen"></div>
<div id="side"><div id="status">connecting…</div>
<div id="recording">
  <div id="tools">
    <button data-mode="use" class="on" title="Your clicks and keys go to the app">Use the app</button>
    <button data-mode="see" title="Click an element: Then I should see it">Check: shown</button>
    <button data-mode="contain" title="Click an element, then give the text it should contain">Check: contains</button>
    <button id="not-see" title="Give a text that should not be shown">Check: not shown</button>
    <button data-mode="hover" title="Click an element: When I hover over it">Hover</button>
    <button id="undo" title="Take back the last delete, re-pick, check or hover">Undo</button>
    <button id="stop" title="Stop recording">Stop</button>
  </div>
  <div id="hint"></div><div id="notice"></div>
  <ol id="steps"></ol>
  <div id="suggestions"></div>
</div>
<pre id="log"></pre></div>
<script type="module">
  import RFB from './novnc/core/rfb.js';
  const params = new URLSearchParams(location.hash.slice(1));
  const key = params.get('key');
  const status = document.getElementById('status');
  const log = document.getElementById('log');
  if (!key) {
    status.textContent = 'This preview needs its key: open the URL Glance printed (it ends in #key=…).';
  } else {
    // Addresses relative to the page: it is also served below a path (the team console's live view), and over HTTPS.
    const socket = new URL('vnc?key=' + encodeURIComponent(key), location.href);
    socket.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    socket.hash = '';
    const rfb = new RFB(document.getElementById('screen'), socket.href, { shared: true });
    rfb.viewOnly = true;
    rfb.scaleViewport = params.get('fit') !== '0';
    rfb.qualityLevel = 9;
    rfb.compressionLevel = 2;
    rfb.addEventListener('connect', () => { status.textContent = 'live'; document.body.dataset.state = 'connected'; });
    rfb.addEventListener('disconnect', () => { status.textContent = 'the sandbox has stopped (or the key is wrong)'; document.body.dataset.state = 'disconnected'; });
    const events = new EventSource('log?key=' + encodeURIComponent(key));
    recordingPanel(rfb, events, key);
    events.onmessage = (message) => {
      const entry = JSON.parse(message.data);
      const line = document.createElement('div');
      line.className = entry.kind;
      line.textContent = new Date(entry.time).toLocaleTimeString() + '  ' + entry.text;
      const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
      log.appendChild(line);
      if (atEnd) log.scrollTop = log.scrollHeight;
    };
  }

  /** The recording panel: shown while a recording runs (and after, as it ended). */
  function recordingPanel(rfb, events, key) {
    const body = document.body;
    const hint = document.getElementById('hint');
    const notice = document.getElementById('notice');
    const list = document.getElementById('steps');
    const suggestions = document.getElementById('suggestions');
    let state = { active: false, steps: [], suggestions: [] };
    /** 'use', a tool ('see', 'contain', 'hover'), or a re-pick under way: { index, need, points }. */
    let mode = 'use';
    const send = async (command) => {
      const answer = await fetch('recording/command?key=' + encodeURIComponent(key), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(command) });
      if (answer.status !== 204) notice.textContent = await answer.text();
    };
    const setMode = (next, text) => {
      mode = next;
      const name = typeof next === 'string' ? next : 'repick';
      body.dataset.mode = name;
      for (const button of document.querySelectorAll('#tools [data-mode]')) button.classList.toggle('on', button.dataset.mode === name);
      hint.textContent = text || '';
      // Only in 'use' does the screen take input: a tool's click goes to the recorder, never to the app.
      rfb.viewOnly = !(state.active && name === 'use');
    };
    const hints = { see: 'Click the element that should be shown.', contain: 'Click the element, then give the text it should contain.', hover: 'Click the element to hover over.' };
    for (const button of document.querySelectorAll('#tools [data-mode]')) button.onclick = () => setMode(button.dataset.mode, hints[button.dataset.mode]);
    document.getElementById('not-see').onclick = () => {
      const text = prompt('The text that should not be shown:');
      if (text) send({ action: 'check', kind: 'not-see', text });
    };
    document.getElementById('undo').onclick = () => send({ action: 'undo' });
    document.getElementById('stop').onclick = () => { hint.textContent = 'Stopping…'; send({ action: 'stop' }); };
    addEventListener('keydown', (event) => { if (event.key === 'Escape' && mode !== 'use') setMode('use'); });
    // A tool's click, caught whole (press, release, click) before noVNC sees any of it, at the sandbox
    // screen's own coordinates; the page is back in 'use' only once the button is up again.
    const screenBox = document.getElementById('screen');
    let swallowing = false;
    for (const type of ['mouseup', 'click', 'contextmenu']) {
      screenBox.addEventListener(type, (event) => {
        if (!swallowing) return;
        event.preventDefault();
        event.stopPropagation();
        if (type === 'mouseup') {
          swallowing = false;
          if (typeof mode !== 'object' || !mode.points.length || mode.points.length >= mode.need) setMode('use');
        }
      }, true);
    }
    screenBox.addEventListener('mousedown', (event) => {
      if (mode === 'use' || !state.active) return;
      const canvas = document.querySelector('#screen canvas');
      if (!canvas) return;
      event.preventDefault();
      event.stopPropagation();
      swallowing = true;
      const box = canvas.getBoundingClientRect();
      const at = { x: Math.round((event.clientX - box.left) * canvas.width / box.width), y: Math.round((event.clientY - box.top) * canvas.height / box.height) };
      if (typeof mode === 'object') {
        mode.points.push(at);
        if (mode.points.length < mode.need) { hint.textContent = 'Now click where it goes.'; return; }
        send({ action: 'repick', index: mode.index, points: mode.points });
      } else if (mode === 'see') send({ action: 'check', kind: 'see', at });
      else if (mode === 'hover') send({ action: 'hover', at });
      else if (mode === 'contain') {
        const kind = mode;
        // The prompt comes after the release, which it would otherwise swallow.
        setTimeout(() => {
          const text = prompt('The text it should contain:');
          if (text) send({ action: 'check', kind, at, text });
        });
      }
    }, true);
    const button = (label, action) => {
      const b = document.createElement('button');
      b.textContent = label;
      b.onclick = action;
      return b;
    };
    events.addEventListener('recording', (message) => {
      state = JSON.parse(message.data);
      body.dataset.recording = state.active ? 'on' : 'off';
      notice.textContent = state.notice || '';
      if (!state.active) hint.textContent = 'The recording has stopped.';
      setMode(state.active ? mode : 'use', state.active ? hint.textContent : 'The recording has stopped.');
      const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
      list.replaceChildren(...state.steps.map((step) => {
        const item = document.createElement('li');
        item.dataset.index = step.index;
        for (const flag of step.flags) {
          const line = document.createElement('div');
          line.className = 'flag';
          line.textContent = '# check: ' + flag;
          item.append(line);
        }
        const text = document.createElement('div');
        text.className = 'text';
        text.textContent = step.keyword + ' ' + step.text;
        item.append(text);
        if (step.picture) {
          const picture = document.createElement('img');
          picture.alt = 'the screen of step ' + step.index;
          picture.src = 'recording/picture?index=' + step.index + '&key=' + encodeURIComponent(key);
          item.append(picture);
        }
        if (state.active) {
          item.append(button('Delete', () => send({ action: 'delete', index: step.index })));
          if (step.picks) item.append(button('Re-pick', () => setMode({ index: step.index, need: step.picks, points: [] }, step.picks === 2 ? 'Click where the drag starts.' : 'Click the element this step means.')));
        }
        return item;
      }));
      if (atEnd) list.scrollTop = list.scrollHeight;
      suggestions.replaceChildren(...state.suggestions.map((suggestion, n) => {
        const line = document.createElement('div');
        line.className = 'suggestion';
        line.textContent = 'Suggested: ' + suggestion.text + ' ';
        if (state.active) line.append(button('Add', () => send({ action: 'take', suggestion: n })));
        return line;
      }));
    });
  }
</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
