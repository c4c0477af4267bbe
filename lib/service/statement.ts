import { quotedTexts, replaceQuoted } from '../util/quotes';

/**
 * Reading an assert() statement: whether it claims no more than that its
 * quoted texts are shown ('"Thank you" is shown'). Such a statement OCR and
 * the accessibility tree can check; any other ("the cart shows 2 items",
 * "the 'Save' button is green") needs a vision model.
 */

/** Words that say "is shown" and nothing more. */
const SHOWN_WORDS = new Set([
  'the', 'a', 'an', 'text', 'texts', 'message', 'words', 'label', 'heading', 'title', 'is', 'are', 'be', 'can', 'i', 'we', 'you',
  'see', 'shown', 'shows', 'show', 'visible', 'displayed', 'displays', 'display', 'appears', 'appear', 'present', 'on', 'in',
  'screen', 'page', 'window', 'and', 'both', 'also', 'there', 'reads', 'read', 'says', 'say', 'somewhere', 'now', 'it',
  // where a text is shown, as a person names it: "the header says 'Signed in'"
  'header', 'footer', 'banner', 'dialog', 'notice', 'toast', 'status', 'bar', 'sidebar', 'toolbar', 'popup',
]);

export function onlyClaimsVisibleText(statement: string): boolean {
  if (!quotedTexts(statement).length) return false;
  const rest = replaceQuoted(statement, () => ' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return rest.every((word) => SHOWN_WORDS.has(word));
}
