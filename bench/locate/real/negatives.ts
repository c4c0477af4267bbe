import { pick, quote, Random, shuffle } from './phrase';

/**
 * Things that are not on the screen but could be: labels common in admin
 * UIs, and near misses of text that is there ("Sign Out" beside "Sign In",
 * "$58,000" beside "$53,000", "Tables overview" beside "Tables"). A phrase is
 * used only when the document holds it nowhere, seen or hidden.
 */
const ABSENT: [string, string][] = [
  ['Logout', 'link'], ['Export CSV', 'button'], ['Archive', 'button'], ['Invoices', 'menu item'], ['Delete account', 'button'],
  ['Billing address', 'field'], ['Phone number', 'field'], ['Two-factor authentication', 'checkbox'], ['Download report', 'button'],
  ['Refund', 'button'], ['Audit log', 'link'], ['Webhooks', 'tab'], ['Team members', 'heading'], ['Pending approval', 'badge'],
  ['Import contacts', 'button'], ['Customer since', 'column header'], ['Zip code', 'field'], ['Remember this device', 'checkbox'],
  ['Cancel subscription', 'link'], ['Print invoice', 'button'], ['Security', 'tab'], ['API keys', 'menu item'], ['Warehouse', 'cell'],
  ['Overdue', 'badge'], ['Shipping method', 'dropdown'], ['Add to cart', 'button'], ['Inventory', 'link in the sidebar'],
  ['Duplicate', 'button'], ['Order history', 'tab'], ['Coupon code', 'field'], ['Reports', 'menu item'], ['Compose', 'button'],
  ['Mark as spam', 'button'], ['Departments', 'link in the sidebar'], ['Last login', 'column header'], ['Beta', 'badge'],
];

const SWAPS: [string, string][] = [
  ['in', 'out'], ['up', 'down'], ['add', 'remove'], ['show', 'hide'], ['open', 'close'], ['next', 'previous'], ['enable', 'disable'],
  ['save', 'discard'], ['login', 'logout'], ['monthly', 'yearly'], ['today', 'yesterday'], ['new', 'old'], ['active', 'inactive'],
  ['online', 'offline'], ['more', 'less'], ['public', 'private'], ['read', 'unread'], ['paid', 'unpaid'], ['upload', 'download'],
  ['import', 'export'], ['start', 'stop'], ['accept', 'decline'], ['success', 'failure'], ['primary', 'secondary'], ['left', 'right'],
  ['profile', 'settings'], ['users', 'groups'], ['sales', 'refunds'], ['total', 'average'], ['free', 'premium'], ['light', 'heavy'],
  ['default', 'custom'], ['basic', 'advanced'], ['small', 'medium'], ['large', 'huge'], ['week', 'month'], ['country', 'region'],
];

const EXTRA_WORDS = ['settings', 'details', 'history', 'overview', 'archive', 'summary'];

const key = (text: string) => text.toLowerCase().replace(/\s+/g, ' ').trim();

export function isAbsent(phrase: string, allText: string): boolean {
  return !allText.includes(key(phrase));
}

/** A plausible label from the list that the document does not hold. */
export function absentLabel(random: Random, allText: string, exclude: Set<string>): { description: string } | null {
  for (const [text, role] of shuffle(random, ABSENT)) {
    if (exclude.has(text) || !isAbsent(text, allText)) continue;
    exclude.add(text);
    const q = random() < 0.7 ? quote(text) : text;
    return { description: role === 'heading' && random() < 0.5 ? q : `the ${q} ${role}` };
  }
  return null;
}

/** A phrase that resembles a present text but is not it: a word swapped for its opposite, a digit changed, a word added. */
export function nearMiss(random: Random, text: string, allText: string): string | null {
  const tries: string[] = [];
  const words = text.split(' ');
  for (const [a, b] of shuffle(random, SWAPS)) {
    for (const [from, to] of [[a, b], [b, a]]) {
      const i = words.findIndex((w) => w.toLowerCase() === from);
      if (i < 0) continue;
      const cased = words[i][0] === words[i][0].toUpperCase() ? to[0].toUpperCase() + to.slice(1) : to;
      tries.push([...words.slice(0, i), cased, ...words.slice(i + 1)].join(' '));
    }
  }
  const digit = text.search(/[1-9]/);
  if (digit >= 0) {
    const changed = String(((Number(text[digit]) + 2 + Math.floor(random() * 6)) % 9) + 1);
    tries.push(text.slice(0, digit) + changed + text.slice(digit + 1));
  }
  if (/[\p{L}]/u.test(text) && words.length <= 3) tries.push(`${text} ${pick(random, EXTRA_WORDS)}`);
  return tries.find((t) => key(t) !== key(text) && isAbsent(t, allText)) ?? null;
}
