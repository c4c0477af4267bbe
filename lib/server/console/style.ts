/** The console's one stylesheet, served from memory: nothing is fetched from elsewhere. */
export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1d232b; --muted: #66717d; --line: #e2e6ea; --accent: #3b6fd4; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, "DejaVu Sans", sans-serif; color: var(--ink); background: #f6f7f9; }
header { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #1d232b; color: #fff; }
header a { color: #cfd6de; text-decoration: none; } header a.here, header a:hover { color: #fff; }
header .brand { font-weight: 700; color: #fff; } header form { margin-left: auto; }
main { max-width: 1180px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 16px; } h2 { font-size: 17px; margin: 24px 0 8px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 13px; color: var(--muted); font-weight: 600; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; color: #fff; }
.passed { background: #2e9d5b; } .failed { background: #d0392b; } .flaky { background: #e0a100; } .other { background: #9aa3ad; }
.muted, .empty { color: var(--muted); } .error { color: #a3261b; white-space: pre-wrap; font-family: monospace; font-size: 13px; }
.cards { display: flex; gap: 16px; flex-wrap: wrap; } .card { background: #fff; border: 1px solid var(--line); padding: 14px 18px; min-width: 160px; }
.card b { display: block; font-size: 24px; }
img.shot { max-width: 480px; border: 1px solid var(--line); } img.crop { max-width: 220px; max-height: 80px; border: 1px solid var(--line); }
video { max-width: 480px; }
button, input[type=submit] { font: inherit; padding: 6px 14px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
button.danger { background: #fff; color: #a3261b; border-color: #a3261b; } header button { background: transparent; border-color: #66717d; }
.login { max-width: 420px; margin: 12vh auto; background: #fff; border: 1px solid var(--line); padding: 28px; }
.login input[type=password] { width: 100%; font: inherit; padding: 8px; margin: 8px 0 16px; }
svg text { font-size: 11px; fill: var(--muted); }
`;
