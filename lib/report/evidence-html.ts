import type { Box } from '../types/screen';
import type { ClipEvidence, FailureEvidence, FindEvidence, PictureEvidence, TimingEvidence } from './step-evidence';
import { PHASES } from './step-timing';
import { hasQuoteMark } from '../util/quotes';

/** A clip link starts this long before the failure, to show what led to it. */
const LEAD_IN_S = 2;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A description in quotes, unless it brings its own (descriptions come as written: `'Save'`, `the 'Save' button`). */
const q = (text: string) => escapeHtml(hasQuoteMark(text) ? text : `'${text}'`);
const boxText = (box: { x: number; y: number; width: number; height: number }) => `${box.x},${box.y} ${box.width}x${box.height}`;

/** A picture, linked to itself; `boxes` (in screen pixels) are the ones drawn on it, kept as data for tools. */
function picture(src: string | null, alt: string, className: string, boxes: Box[] = []): string {
  if (!src) return '<p class="glance-missing">(the picture was not kept)</p>';
  const data = boxes.length ? ` data-boxes="${boxes.map((b) => `${b.x},${b.y},${b.width},${b.height}`).join(';')}"` : '';
  return `<a href="${escapeHtml(src)}" target="_blank"><img class="${className}" src="${escapeHtml(src)}" alt="${escapeHtml(alt)}"${data} style="max-width:100%;border:1px solid #ccc"></a>`;
}

function cacheText(cache: FindEvidence['cache']): string {
  if (!cache.hit) return 'cache miss';
  return `cache hit (${cache.strategy}${cache.diffPercent !== null ? `, screen ${cache.diffPercent}% different` : ''})`;
}

/** A find step: what was looked for, what answered and how, and the screen with the box it found (green) or the best miss (red). */
export function findHtml(e: FindEvidence, src: string | null): string {
  const outcome = e.found
    ? `found by <b>${escapeHtml(e.engine)}</b> in ${e.ms} ms`
    : `<b style="color:#c00">not found</b> after ${e.ms} ms (tried ${escapeHtml(e.engine)})`;
  const facts = [outcome, cacheText(e.cache)];
  if (e.found && e.confidence !== null) facts.push(`confidence ${e.confidence}`);
  if (e.box) facts.push(`box ${boxText(e.box)}`);
  return `<div class="glance-find" data-found="${e.found}">
<p><b>find</b> ${q(e.description)}: ${facts.join(' · ')}</p>
${e.reason ? `<pre class="glance-reason" style="white-space:pre-wrap">${escapeHtml(e.found ? `why: ${e.reason}` : e.reason)}</pre>` : ''}
${picture(src, `the screen the find looked at, ${e.found ? 'the element boxed in green' : 'its best candidate boxed in red'}`, 'glance-picture', e.box ? [e.box] : [])}
</div>`;
}

function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A failed step: what it looked for, what the screen showed instead, the screen, and the dashcam clip at that moment. */
export function failureHtml(e: FailureEvidence, src: string | null, clip: { link: string; startedAt: number | null } | null): string {
  const lines = [`<p><b>Failed:</b> ${escapeHtml(e.error)}</p>`];
  if (e.lookedFor) lines.push(`<p><b>Looked for:</b> ${q(e.lookedFor)}${e.best ? ` (best candidate, in red: ${boxText(e.best)})` : ' (no candidate came close)'}</p>`);
  if (e.seenInstead) lines.push(`<p><b>Seen instead:</b> ${escapeHtml(e.seenInstead)}</p>`);
  if (e.lastActed) lines.push(`<p><b>Last located</b>, in amber: ${q(e.lastActed.description)} at ${boxText(e.lastActed.box)}</p>`);
  if (clip) {
    const at = clip.startedAt ? (e.at - clip.startedAt) / 1000 : null;
    const start = at === null ? 0 : Math.max(0, at - LEAD_IN_S);
    const href = at === null ? clip.link : `${clip.link}#t=${start.toFixed(1)}`;
    lines.push(`<p><a class="glance-clip" href="${escapeHtml(href)}" target="_blank">Dashcam clip${at === null ? '' : ` at ${clock(at)} (from ${clock(start)})`}</a></p>`);
  }
  const boxes = [...(e.lastActed ? [e.lastActed.box] : []), ...(e.best ? [e.best] : [])];
  lines.push(picture(src, 'the screen when the step failed', 'glance-failure-picture', boxes));
  return `<div class="glance-failure">\n${lines.join('\n')}\n</div>`;
}

export function pictureHtml(e: PictureEvidence, src: string | null): string {
  return `<figure class="glance-shot">${picture(src, e.title, 'glance-picture')}<figcaption>${escapeHtml(e.title)}</figcaption></figure>`;
}

/** The scenario's dashcam clip, playable in the page. */
export function clipHtml(e: ClipEvidence, link: string | null): string {
  if (!link) return '<p class="glance-missing">(the dashcam clip was not kept)</p>';
  const size = e.bytes > 1024 * 1024 ? `${(e.bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.round(e.bytes / 1024)} KB`;
  return `<div class="glance-dashcam"><p><b>Dashcam</b>: ${clock(e.durationMs / 1000)}, ${size} · <a class="glance-clip" href="${escapeHtml(link)}" target="_blank">open the clip</a></p>
<video class="glance-video" controls preload="metadata" src="${escapeHtml(link)}" style="max-width:100%"></video></div>`;
}

const PHASE_COLOURS: Record<string, string> = { capture: '#8da0cb', cache: '#66c2a5', engine: '#fc8d62', change: '#e78ac3', action: '#a6d854', still: '#ffd92f' };

/** Where a step's time went: each phase in ms, and a bar of their shares. */
export function timingHtml(e: TimingEvidence): string {
  const spent = PHASES.filter(({ phase }) => e.phases[phase] > 0);
  const total = spent.reduce((sum, { phase }) => sum + e.phases[phase], 0);
  if (!total) return '';
  const bar = spent.map(({ phase, name }) => `<span title="${escapeHtml(name)}: ${e.phases[phase]} ms" style="display:inline-block;height:8px;width:${((100 * e.phases[phase]) / total).toFixed(1)}%;background:${PHASE_COLOURS[phase]}"></span>`).join('');
  const words = spent.map(({ phase, name }) => `<span style="border-left:8px solid ${PHASE_COLOURS[phase]};padding-left:3px">${escapeHtml(name)} ${e.phases[phase]} ms</span>`).join(' · ');
  return `<div class="glance-timing"><p><b>time</b>: ${words}</p><div style="width:100%;max-width:600px;line-height:0">${bar}</div></div>`;
}
