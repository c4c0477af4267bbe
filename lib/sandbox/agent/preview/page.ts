/**
 * The live preview page: the sandbox's screen through noVNC (view only) and
 * the test's command log as it happens. It holds no secret: the key comes in
 * the URL's fragment (`#key=…`), and without it the page says so and stops.
 * `&fit=0` shows the screen at its own size instead of fitting the window.
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
  .error { color: #f88; } .success { color: #9d9; } .start { color: #aaa; } .step { color: #8cf; font-weight: bold; }
</style>
</head>
<body>
<div id="screen"></div>
<div id="side"><div id="status">connecting…</div><pre id="log"></pre></div>
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
</script>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
