import type { ScreenSnapshot } from './types';

// The page's globals, loosely typed: Glance compiles without the DOM library, and this function runs in the page.
declare const document: any, window: any, getComputedStyle: any, Node: any;
type Element = any;
type HTMLElement = any;
type HTMLInputElement = any;
type HTMLSelectElement = any;
type DOMRect = any;
type DomNode = any;

/**
 * What a person can see on a rendered page, read from its DOM: the elements a
 * QA engineer would name (buttons, links, tabs, headings, cells, badges,
 * fields, checkboxes) with their boxes, every visible run of text, and all of
 * the document's text for choosing absent phrases.
 *
 * Runs inside the page (Playwright serialises the function), so it uses
 * nothing from outside its own body. An element counts only when it is
 * displayed, opaque enough, wholly inside the viewport, at least 4 px each
 * way, and on top at its centre (elementFromPoint), so covered, clipped and
 * off-screen elements are left out; so is text that a box with hidden
 * overflow cuts mostly away.
 */
export function snapshotInPage(): ScreenSnapshot {
  type Box = { x: number; y: number; width: number; height: number };
  const W = window.innerWidth;
  const H = window.innerHeight;
  const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
  const boxOf = (r: DOMRect): Box => ({ x: Math.round(r.left), y: Math.round(r.top), width: Math.round(r.width), height: Math.round(r.height) });
  const inside = (r: DOMRect) => r.width >= 4 && r.height >= 4 && r.left >= -0.5 && r.top >= -0.5 && r.right <= W + 0.5 && r.bottom <= H + 0.5;

  const shown = (el: Element): boolean => {
    for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.visibility === 'collapse' || Number(s.opacity) < 0.2) return false;
    }
    return true;
  };
  const onTop = (el: Element, r: DOMRect, also: Element[] = []): boolean => {
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit) return false;
    return el === hit || el.contains(hit) || hit.contains(el) || also.some((a) => a === hit || a.contains(hit));
  };
  const visible = (el: Element, also: Element[] = []): boolean => {
    const r = el.getBoundingClientRect();
    return inside(r) && shown(el) && onTop(el, r, also);
  };

  /** The text colour's luminance; the background's is measured on the screenshot, where sibling layers show too. */
  const ink = (el: Element) => Math.round(luminance(getComputedStyle(el).color) * 100) / 100;
  const alpha = (colour: string) => {
    const m = colour.match(/rgba?\(([^)]+)\)/);
    if (!m) return 1;
    const parts = m[1].split(/[ ,/]+/).filter(Boolean);
    return parts.length > 3 ? Number(parts[3]) : 1;
  };
  const luminance = (colour: string) => {
    const m = colour.match(/rgba?\(([^)]+)\)/);
    if (!m) return 1;
    const [r, g, b] = m[1].split(/[ ,/]+/).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  /** Text on one rendered line only: the rectangles of its text share one line. */
  const oneLine = (el: Element): boolean => {
    const range = document.createRange();
    range.selectNodeContents(el);
    const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
    if (!rects.length) return false;
    const size = parseFloat(getComputedStyle(el).fontSize) || 14;
    const top = Math.min(...rects.map((r) => r.top + r.height / 2));
    return rects.every((r) => Math.abs(r.top + r.height / 2 - top) < size * 0.6);
  };
  /** The part of a rectangle that no clipping box around a text node cuts away (overflow hidden, on its own element too). */
  const unclipped = (text: DomNode, r: DOMRect): DOMRect | null => {
    let [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom];
    for (let e = text.parentElement; e && e !== document.documentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const c = e.getBoundingClientRect();
      if (s.overflowX !== 'visible') [left, right] = [Math.max(left, c.left), Math.min(right, c.right)];
      if (s.overflowY !== 'visible') [top, bottom] = [Math.max(top, c.top), Math.min(bottom, c.bottom)];
      if (right - left < 1 || bottom - top < 1) return null;
    }
    return { left, top, right, bottom, width: right - left, height: bottom - top } as DOMRect;
  };
  const textNodesIn = (node: DomNode): DomNode[] => {
    if (node.nodeType === Node.TEXT_NODE) return norm(node.textContent) ? [node] : [];
    return [...node.childNodes].flatMap(textNodesIn);
  };
  /**
   * Where the text of `nodes` is drawn, within the element's box: a button's
   * label, not its padding. null: the text is there but mostly clipped out
   * of sight (an icon button's name in a zero-width box, the hidden face of
   * an animated button).
   */
  const textBoxOf = (el: Element, nodes: DomNode[] = [el]): Box | null | undefined => {
    const texts = nodes.flatMap(textNodesIn);
    const drawn = texts.flatMap((text) => {
      const range = document.createRange();
      range.selectNodeContents(text);
      return [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0).map((r) => ({ r, shown: unclipped(text, r) }));
    });
    if (!drawn.length) return undefined;
    const area = (r: DOMRect | null) => (r ? r.width * r.height : 0);
    if (drawn.reduce((sum, d) => sum + area(d.shown), 0) < 0.5 * drawn.reduce((sum, d) => sum + area(d.r), 0)) return null;
    const rects = drawn.map((d) => d.shown).filter((r): r is DOMRect => !!r);
    const own = el.getBoundingClientRect();
    const [left, top] = [Math.max(own.left, Math.min(...rects.map((r) => r.left))), Math.max(own.top, Math.min(...rects.map((r) => r.top)))];
    const [right, bottom] = [Math.min(own.right, Math.max(...rects.map((r) => r.right))), Math.min(own.bottom, Math.max(...rects.map((r) => r.bottom)))];
    return right > left && bottom > top ? boxOf({ left, top, width: right - left, height: bottom - top }) : undefined;
  };
  /** Text that runs on into a neighbour's with no space between ('20' in '20<small>px</small>'): part of a word, not one. */
  const glued = (node: DomNode): boolean => {
    const text = node.textContent ?? '';
    const before = node.previousSibling?.textContent ?? '';
    const after = node.nextSibling?.textContent ?? '';
    // A letter or digit meets another, or a decimal part ('33' and '.25px').
    const starts = /^(?:[\p{L}\p{N}]|[.,]\p{N})/u;
    const ends = /[\p{L}\p{N}]$/u;
    return (ends.test(text) && starts.test(after)) || (starts.test(text) && ends.test(before));
  };
  const readableText = (el: Element): boolean => {
    const s = getComputedStyle(el);
    return parseFloat(s.fontSize) >= 9 && alpha(s.color) > 0.3;
  };
  const readable = (el: Element): boolean => readableText(el) && oneLine(el);

  const BADGE = '.badge, .label, .tag, .chip, .pill, .notification';
  const BUTTON = 'button, input[type=button], input[type=submit], input[type=reset], [role=button], .btn, a.button';
  const TAB = '[role=tab], .nav-tabs .nav-link, .nav-tabs > li > a, .tab-item > a, [role=tablist] > li, .nav-pills .nav-link';
  const FIELD = 'input, select, textarea';

  /** An element's own text: its rendered text less that of badges inside it, and of parts too small or faint to read (a dot whose '1' is drawn at size 0). */
  const textOf = (el: Element): string => {
    let text = norm((el as HTMLElement).innerText);
    let source = norm(el.textContent);
    const unreadable = [...el.querySelectorAll('*')].filter((part) => norm(part.textContent) && !readableText(part));
    for (const badge of [...el.querySelectorAll(BADGE), ...unreadable]) {
      const t = norm((badge as HTMLElement).innerText);
      if (t) text = norm(text.replace(t, ' '));
      source = norm(source.replace(norm(badge.textContent), ' '));
    }
    // Text shown upper-cased by CSS is written as the page spells it, as a person who knows the app writes it.
    return source.toLowerCase() === text.toLowerCase() ? source : text;
  };
  const region = (el: Element): 'sidebar' | 'top bar' | 'table' | 'main' => {
    if (el.closest('table')) return 'table';
    for (let e: Element | null = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const r = e.getBoundingClientRect();
      const tag = e.tagName.toLowerCase();
      const cls = (e.getAttribute('class') ?? '').toLowerCase();
      if ((tag === 'aside' || tag === 'nav' || /side|drawer/.test(cls)) && r.height >= H * 0.5 && r.width <= W * 0.3 && r.left < W * 0.2) return 'sidebar';
      if ((tag === 'header' || tag === 'nav' || /navbar|topbar|header/.test(cls)) && r.top < 80 && r.height <= 130 && r.width >= W * 0.5) return 'top bar';
    }
    return 'main';
  };
  const kindOf = (el: Element): ScreenSnapshot['elements'][number]['kind'] | null => {
    if (el.matches(BADGE)) return 'badge';
    if (el.matches(BUTTON)) return 'button';
    if (el.matches(TAB)) return 'tab';
    if (el.matches('a[href]')) return 'link';
    if (el.matches('h1, h2, h3, h4, h5, h6')) return 'heading';
    if (el.matches('th')) return 'column-header';
    if (el.matches('td')) return 'cell';
    return null;
  };
  const TARGETED = `${BADGE}, ${BUTTON}, ${TAB}, a[href], h1, h2, h3, h4, h5, h6, th, td, label, ${FIELD}`;

  const elements: ScreenSnapshot['elements'] = [];
  const all = [...document.body.querySelectorAll('*')];

  // Named elements: buttons, links, tabs, headings, cells, badges.
  for (const el of all) {
    const kind = kindOf(el);
    if (!kind || el.matches(FIELD)) continue;
    // A cell that holds a control is named by that control, not as a cell.
    if ((kind === 'cell' || kind === 'column-header') && el.querySelector(`${BUTTON}, a[href], ${FIELD}`)) continue;
    // Nested named elements: the innermost kind wins for badges; a link inside a heading is the link.
    if (kind === 'heading' && el.querySelector('a[href]')) continue;
    if ((kind === 'link' || kind === 'tab') && el.closest(BUTTON) && el.closest(BUTTON) !== el) continue;
    const text = textOf(el);
    if (!text || text.length > 40 || !/[\p{L}\p{N}]/u.test(text)) continue;
    if (!visible(el) || !readable(el)) continue;
    const textBox = textBoxOf(el);
    if (textBox === null) continue;
    elements.push({ kind, text, box: boxOf(el.getBoundingClientRect()), region: region(el), ink: ink(el), textBox });
  }

  // Plain text: leaf elements with their own text, not inside a named element or a label.
  for (const el of all) {
    if (el.closest(TARGETED) || el.matches('script, style, option, title, noscript, svg, svg *')) continue;
    if ([...el.children].some((c) => norm((c as HTMLElement).innerText))) continue;
    const text = textOf(el);
    if (!text || text.length > 40 || !/[\p{L}\p{N}]/u.test(text)) continue;
    if (!visible(el) || !readable(el) || glued(el)) continue;
    const textBox = textBoxOf(el);
    if (textBox === null) continue;
    elements.push({ kind: 'text', text, box: boxOf(el.getBoundingClientRect()), region: region(el), ink: ink(el), textBox });
  }

  // Fields, dropdowns, text areas, checkboxes and radios, with the label a person sees.
  const labelFor = (el: HTMLInputElement): HTMLElement | null => {
    const own = el.labels?.[0] ?? null;
    if (own) return own;
    const group = el.closest('.form-group, .mb-3, .field-row, .field-row-stacked, .input-group, .form-item, .form-line, .col, fieldset');
    const near = group?.querySelector('label, .form-label, .control-label') as HTMLElement | null;
    return near && !near.contains(el) ? near : null;
  };
  /** The box of an element's absolutely placed ::before (a drawn checkbox), when it is a small square. */
  const drawnBefore = (el: HTMLElement) => {
    const style = getComputedStyle(el, '::before');
    if (style.content === 'none' || style.content === 'normal' || style.position !== 'absolute') return null;
    const [left, top, width, height] = [style.left, style.top, style.width, style.height].map(parseFloat);
    if (![left, top, width, height].every(Number.isFinite) || width < 8 || height < 8 || width > 30 || height > 30) return null;
    const own = getComputedStyle(el);
    if (own.position === 'static') return null; // placed against another ancestor: not measured here
    const r = el.getBoundingClientRect();
    const x = r.left + parseFloat(own.borderLeftWidth) + left;
    const y = r.top + parseFloat(own.borderTopWidth) + top;
    const box = { left: x, top: y, width, height, right: x + width, bottom: y + height } as DOMRect;
    return inside(box) ? boxOf(box) : null;
  };
  const labelText = (label: HTMLElement | null) => (label ? textOf(label).replace(/[\s:*]+$/, '') : '');
  for (const el of all.filter((e) => e.matches(FIELD)) as HTMLInputElement[]) {
    const type = (el.getAttribute('type') ?? 'text').toLowerCase();
    if (['hidden', 'file', 'range', 'color', 'image', 'submit', 'button', 'reset'].includes(type)) continue;
    const label = labelFor(el);
    const labelShown = !!label && visible(label) && readable(label) && label.getBoundingClientRect().width > 0;
    if (type === 'checkbox' || type === 'radio') {
      if (!labelShown) continue;
      const text = labelText(label);
      if (!text || text.length > 40) continue;
      const r = el.getBoundingClientRect();
      const own = inside(r) && r.width >= 6 && shown(el) ? [boxOf(r)] : [];
      const labelBox = boxOf(label!.getBoundingClientRect());
      // A hidden input is often drawn by its label's ::before, placed outside the label's own box (98.css): that square is the box a person clicks.
      const drawn = own.length ? null : drawnBefore(label!);
      const hits = [...own, ...(drawn ? [drawn] : [])];
      elements.push({ kind: type, text, box: hits[0] ?? labelBox, alsoHits: hits.length ? [labelBox] : [], region: region(el), labelBox });
      continue;
    }
    if (!visible(el, label ? [label] : [])) continue;
    const kind = el.tagName === 'SELECT' ? 'dropdown' : el.tagName === 'TEXTAREA' ? 'textarea' : 'field';
    const value = el.tagName === 'SELECT'
      ? norm((el as unknown as HTMLSelectElement).selectedOptions[0]?.text)
      : type === 'password' ? '' : norm(el.value);
    // A floating label's input keeps its placeholder in no colour: the label shows instead.
    const placeholder = value || alpha(getComputedStyle(el, '::placeholder').color) <= 0.3 ? '' : norm(el.getAttribute('placeholder'));
    const text = labelShown ? labelText(label) : '';
    elements.push({
      kind, text, box: boxOf(el.getBoundingClientRect()), region: region(el),
      ...(placeholder ? { placeholder } : {}), ...(value ? { value } : {}),
      ...(labelShown && text ? { labelBox: boxOf(label!.getBoundingClientRect()) } : {}),
    });
  }

  // Every visible run of text: elements with text of their own, and fields' shown values and placeholders.
  const texts: ScreenSnapshot['texts'] = [];
  for (const el of all) {
    if (el.matches('script, style, option, title, noscript')) continue;
    const ownNodes = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE);
    const own = ownNodes.map((n) => n.textContent).join(' ');
    if (!norm(own)) continue;
    const hasTextChildren = [...el.children].some((c) => norm((c as HTMLElement).innerText));
    const shownText = norm((el as HTMLElement).innerText);
    const text = hasTextChildren ? norm(own) : shownText.toLowerCase() === norm(el.textContent).toLowerCase() ? norm(el.textContent) : shownText;
    if (!text) continue;
    const r = el.getBoundingClientRect();
    if (r.right < 0 || r.bottom < 0 || r.left > W || r.top > H || !shown(el)) continue;
    // Text drawn at no size or in no colour (a dot whose '1' is at font size 0) is no copy at all.
    const style = getComputedStyle(el);
    if (parseFloat(style.fontSize) < 1 || alpha(style.color) === 0) continue;
    const textBox = textBoxOf(el, hasTextChildren ? ownNodes : [el]);
    if (textBox === null) continue;
    // Part of a longer word on screen: a copy that may count, never a target.
    const partOfWord = hasTextChildren ? ownNodes.some(glued) : glued(el);
    texts.push({ text, box: boxOf(r), textBox, ...(partOfWord ? { unsure: true } : {}) });
  }
  for (const e of elements) {
    if (e.placeholder) texts.push({ text: e.placeholder, box: e.box, inField: true });
    if (e.value) texts.push({ text: e.value, box: e.box, inField: true });
  }

  const attributes = all.map((el) => ['placeholder', 'value', 'title', 'aria-label', 'alt'].map((a) => el.getAttribute(a) ?? '').join(' ')).join(' ');
  const allText = norm(`${document.body.textContent ?? ''} ${attributes}`).toLowerCase();
  return { elements, texts, allText };
}
