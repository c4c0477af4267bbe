import type { CommandRow, CommandRun, ResultRow, RunSummary, ScenarioHistory } from '../runs';
import type { SessionRow } from '../../service/session-log';
import type { OwnerRow } from '../../service/sandbox-owners';
import { barChart, outcomeBar, outcomeDots, sparkline } from './charts';
import { html, Html } from './html';

/** What every page shows in its header: the team, and the form fields that prove a request came from the console. */
export interface PageContext {
  team: string;
  csrf: string;
}

const SECTIONS = [['runs', 'Runs'], ['flaky', 'Flaky tests'], ['sandboxes', 'Sandboxes'], ['cache', 'Cache'], ['analytics', 'Analytics'], ['health', 'Health']] as const;

export function layout(title: string, here: string, page: PageContext | null, body: Html): string {
  const nav = page
    ? html`${SECTIONS.map(([path, label]) => html`<a href="/console/${path}" class="${path === here ? 'here' : ''}">${label}</a>`)}
      <form method="post" action="/console/logout"><input type="hidden" name="csrf" value="${page.csrf}"><span class="muted">team ${page.team}</span> <button>Log out</button></form>`
    : html``;
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Glance</title><link rel="stylesheet" href="/console/style.css"></head>
<body><header><span class="brand">Glance</span>${nav}</header><main>${body}</main></body></html>`}`;
}

export function loginPage(message: string | null): string {
  return layout('Log in', '', null, html`<form class="login" method="post" action="/console/login">
  <h1>Glance team console</h1>
  <p class="muted">Log in with your team's API key. It is exchanged for a session cookie and never kept in the page or its address.</p>
  ${message ? html`<p class="error" role="alert">${message}</p>` : ''}
  <label for="apiKey">API key</label>
  <input type="password" id="apiKey" name="apiKey" autocomplete="off" required>
  <input type="submit" value="Log in">
</form>`);
}

const when = (iso: string) => iso.replace('T', ' ').slice(0, 19);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const badge = (outcome: string) => html`<span class="badge ${['passed', 'failed', 'flaky'].includes(outcome) ? outcome : 'other'}">${outcome}</span>`;

export function runsPage(page: PageContext, runs: RunSummary[], sdkRuns: CommandRun[]): string {
  return layout('Runs', 'runs', page, html`<h1>Runs</h1>
${sdkRuns.length ? html`<h2>SDK runs</h2><table><thead><tr><th>Run</th><th>Started</th><th>Commands</th><th>Failed</th><th>Time in commands</th></tr></thead><tbody>
${sdkRuns.map((r) => html`<tr><td><a href="/console/runs/${encodeURIComponent(r.runId)}">${r.runId}</a></td><td>${when(r.startedAt)}</td><td>${r.commands}</td><td>${r.errors}</td><td>${seconds(r.durationMs)}</td></tr>`)}
</tbody></table><h2>Cucumber runs</h2>` : ''}
${runs.length ? html`<table><thead><tr><th>Run</th><th>Finished</th><th>Scenarios</th><th>Outcome</th><th>Time in scenarios</th></tr></thead><tbody>
${runs.map((r) => html`<tr><td><a href="/console/runs/${encodeURIComponent(r.runId)}">${r.runId}</a></td><td>${when(r.finishedAt)}</td>
<td>${r.scenarios}: ${r.passed} passed, ${r.flaky} flaky, ${r.failed} failed</td><td>${outcomeBar(r)}</td><td>${seconds(r.durationMs)}</td></tr>`)}
</tbody></table>` : html`<p class="empty">No runs yet. Runs appear here when Cucumber runs with apiRoot (GLANCE_API_ROOT) set to this server.</p>`}`);
}

export function runPage(page: PageContext, runId: string, results: ResultRow[], commands: CommandRow[]): string {
  return layout(`Run ${runId}`, 'runs', page, html`<h1>Run ${runId}</h1>
${!results.length && commands.length ? html`<table><thead><tr><th>Started</th><th>Command</th><th>Outcome</th><th>Time</th></tr></thead><tbody>
${commands.map((c) => html`<tr class="command"><td>${when(c.startedAt)}</td><td>${c.command}${c.description ? html` <span class="muted">'${c.description}'</span>` : ''}</td>
<td>${badge(c.outcome === 'success' ? 'passed' : c.outcome === 'not-found' ? 'not found' : 'failed')}${c.errorName ? html` <span class="muted">${c.errorName}</span>` : ''}</td><td>${Math.round(c.durationMs)} ms</td></tr>`)}
</tbody></table>` : ''}
${results.length || commands.length ? '' : html`<p class="empty">No scenarios or commands of your team in run ${runId}.</p>`}
${results.length ? html`<table><thead><tr><th>Scenario</th><th>Try</th><th>Outcome</th><th>Time</th><th>Failing step and evidence</th></tr></thead><tbody>
${results.map((r) => html`<tr class="result"><td>${r.name}<div class="muted">${r.feature}</div></td><td>${r.attempt}${r.willRetry ? ' (retried)' : ''}</td>
<td>${badge(r.outcome)}</td><td>${seconds(r.durationMs)}</td>
<td>${r.failingStep ? html`<div><b>${r.failingStep}</b></div>` : ''}${r.error ? html`<div class="error">${r.error.split('\n').slice(0, 6).join('\n')}</div>` : ''}
${r.evidence.map((e) => (e.contentType.startsWith('image/')
    ? html`<div><img class="shot" src="/console/evidence/${e.id}" alt="${e.kind} screenshot of '${r.name}'"></div>`
    : html`<div><video controls preload="none" src="/console/evidence/${e.id}"></video> <a href="/console/evidence/${e.id}">dashcam clip</a></div>`))}</td></tr>`)}
</tbody></table>` : ''}`);
}

export function flakyPage(page: PageContext, history: ScenarioHistory[]): string {
  return layout('Flaky tests', 'flaky', page, html`<h1>Flaky tests and history</h1>
<p class="muted">Each scenario's last runs, newest first. A scenario that passed only on a retry counts as flaky.</p>
${history.length ? html`<table><thead><tr><th>Scenario</th><th>Last runs</th><th>Flake rate</th><th>Duration trend</th></tr></thead><tbody>
${history.map((h) => html`<tr><td>${h.scenario}</td><td>${outcomeDots(h.outcomes.map((o) => ({ outcome: o.outcome, runId: o.runId })))}</td>
<td>${Math.round(h.flakeRate * 100)}%</td><td>${sparkline(h.outcomes.map((o) => o.durationMs).reverse())}</td></tr>`)}
</tbody></table>` : html`<p class="empty">No history yet.</p>`}`);
}

export interface CacheEntryView {
  id: number;
  description: string;
  key: string;
  resolution: string;
  hits: number;
  lastUsed: string;
  engine: string;
}

export function cachePage(page: PageContext, entries: CacheEntryView[], bytes: number): string {
  return layout('Cache', 'cache', page, html`<h1>Cache</h1>
<p class="muted">${entries.length} entries of your team shown, ${Math.round(bytes / 1024)} KiB of crops and screens in the store. A deleted entry is found afresh by the next run.</p>
${entries.length ? html`<table><thead><tr><th>Element</th><th>Crop</th><th>Key and screen</th><th>Hits</th><th>Last used</th><th></th></tr></thead><tbody>
${entries.map((e) => html`<tr class="entry" data-id="${e.id}"><td>${e.description}<div class="muted">${e.engine}</div></td>
<td><a href="/console/cache/${e.id}/screen.png"><img class="crop" src="/console/cache/${e.id}/crop.png" alt="crop of '${e.description}'"></a></td>
<td>${e.key}<div class="muted">${e.resolution}</div></td><td>${e.hits}</td><td>${when(e.lastUsed)}</td>
<td><form method="post" action="/console/cache/${e.id}/delete"><input type="hidden" name="csrf" value="${page.csrf}"><button class="danger" aria-label="Delete '${e.description}'">Delete</button></form></td></tr>`)}
</tbody></table>` : html`<p class="empty">The cache of your team is empty.</p>`}`);
}

export function sandboxesPage(page: PageContext, running: OwnerRow[], limit: number | null, queued: number, sessions: SessionRow[]): string {
  return layout('Sandboxes', 'sandboxes', page, html`<h1>Live sandboxes and the queue</h1>
<div class="cards"><div class="card"><b>${running.length}</b>running</div><div class="card"><b>${limit ?? '∞'}</b>limit</div><div class="card"><b>${queued}</b>waiting in the queue</div></div>
<h2>Running</h2>
${running.length ? html`<table><thead><tr><th>Sandbox</th><th>Kind</th><th>Screen</th><th>Started</th><th>Held for</th><th></th></tr></thead><tbody>
${running.map((s) => html`<tr><td>${s.sandboxId}</td><td>${s.provider === 'ip' ? 'your agent' : 'local'}</td><td>${s.resolution}</td><td>${when(s.createdAt)}</td>
<td>${Math.round((Date.now() - Date.parse(s.createdAt)) / 60000)} min</td>
<td>${s.provider === 'local' ? html`<a href="/console/live/${s.sandboxId}" target="_blank" rel="noopener">Watch live</a>` : ''}</td></tr>`)}</tbody></table>` : html`<p class="empty">No sandbox of your team is running.</p>`}
<h2>Recent sessions</h2>
${sessions.length ? html`<table><thead><tr><th>Sandbox</th><th>Opened</th><th>Held for</th><th>Ended</th></tr></thead><tbody>
${sessions.map((s) => html`<tr><td>${s.sandboxId}</td><td>${when(s.openedAt)}</td><td>${Math.round(((s.endedAt ? Date.parse(s.endedAt) : Date.now()) - Date.parse(s.openedAt)) / 1000)} s</td>
<td>${s.endedAt ? s.endReason : html`<b>open</b>`}</td></tr>`)}</tbody></table>` : html`<p class="empty">No sessions yet.</p>`}`);
}

export interface AnalyticsView {
  locateByEngine: { label: string; value: number }[];
  hitRateByRun: { label: string; value: number }[];
  modelCallsByRun: { label: string; value: number }[];
  modelTokensByRun: { label: string; value: number }[];
}

export function analyticsPage(page: PageContext, view: AnalyticsView): string {
  return layout('Analytics', 'analytics', page, html`<h1>Analytics</h1>
<h2>Median locate time by engine (ms)</h2>${barChart(view.locateByEngine.map((b) => ({ ...b, unit: '' })))}
<h2>Cache hit rate by run (%)</h2>${barChart(view.hitRateByRun)}
<h2>Vision-model calls by run</h2>${barChart(view.modelCallsByRun)}
<h2>Vision-model tokens by run</h2>${barChart(view.modelTokensByRun)}`);
}

export interface HealthView {
  teams: { name: string; limit: number | null; running: number; queued: number }[];
  reapedSessions: number;
  agents: { sandboxId: string; address: string; lastSeen: string | null }[];
  storage: { label: string; bytes: number }[];
}

export function healthPage(page: PageContext, view: HealthView): string {
  return layout('Health', 'health', page, html`<h1>Capacity and health</h1>
<div class="cards"><div class="card"><b>${view.reapedSessions}</b>sessions reaped</div>
${view.storage.map((s) => html`<div class="card"><b>${(s.bytes / 1024 / 1024).toFixed(1)} MiB</b>${s.label}</div>`)}</div>
<h2>Your team</h2><table><thead><tr><th>Team</th><th>Limit</th><th>Running</th><th>Queue</th></tr></thead><tbody>
${view.teams.map((t) => html`<tr><td>${t.name}</td><td>${t.limit ?? 'none'}</td><td>${t.running}</td><td>${t.queued}</td></tr>`)}</tbody></table>
<h2>Agents of your own</h2>
${view.agents.length ? html`<table><thead><tr><th>Agent</th><th>Last answered</th></tr></thead><tbody>
${view.agents.map((a) => html`<tr><td>${a.sandboxId}</td><td>${a.lastSeen ? when(a.lastSeen) : 'not reached'}</td></tr>`)}</tbody></table>` : html`<p class="empty">No agent of your own is attached.</p>`}`);
}
