/**
 * Reading an assert() statement: the quoted texts it names, and whether it
 * claims no more than that those texts are shown ('"Thank you" is shown').
 * Such a statement OCR and the accessibility tree can check; any other
 * ("the cart shows 2 items", "the 'Save' button is green") needs a vision model.
 */
export function quotedTexts(statement: string): string[] {
  return [...statement.matchAll(/"([^"]+)"|'([^']+)'|\u201c([^\u201d]+)\u201d/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

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
  const rest = statement.replace(/"[^"]+"|'[^']+'|\u201c[^\u201d]+\u201d/g, ' ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return rest.every((word) => SHOWN_WORDS.has(word));
}
