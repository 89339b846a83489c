/**
 * Plain text of an already sanitized description, for full-text search and salary parsing.
 *
 * Why not html-to-text: it builds a DOM and runs a selector engine per element, and with the
 * sanitizer's own parse it made up most of the enrichment step's time (measured with a CPU profile
 * over the 7,889 recorded Ashby postings; docs/enrichment-quality.md, Throughput). The input here is
 * never untrusted: it is the output of `sanitizeDescription`, whose tags are a closed allow-list (p,
 * br, div, ul, ol, li, strong, b, em, i, u, h3, h4, a, blockquote, code, pre, table rows and cells)
 * without attributes that matter for text. So the formatting below covers exactly that list, and the
 * markup is well formed by construction: sanitize-html writes every tag itself, escapes `<` and `>`
 * in text and attribute values, and decodes every other entity on input, so the only entities left
 * are `&amp;` `&lt;` `&gt;` `&quot;`. That lets one native regular-expression scan stand in for a
 * second HTML parse. Do not call this on HTML that did not come out of `sanitizeDescription`.
 *
 * Output shape (the one html-to-text gave with the options this project used): paragraphs, headings,
 * blockquotes, tables and lists separated by one blank line; `<br>` a line break; list items on their
 * own lines as ` * item` (ordered lists too: their numbers are presentation); table cells of a row separated by two spaces;
 * whitespace collapsed to single spaces (in `<pre>` too: descriptions use it for emphasis, not
 * alignment); link URLs left out; no wrapping.
 */

const WHITESPACE = /[\s\u00a0\u200b]+/g;
/** An item opens a line with its marker; a paragraph or div opening the item stays on that line. */
// No pattern starts with an optional part: each would be tried at every position of the text.
const LI_OPEN = /<li>(?:<(?:p|div)>| )*/g;
const LI_CLOSE = /(?:<\/(?:p|div)> ?)*<\/li>/g;
const BLOCK = /<\/?(?:p|div|h3|h4|blockquote|pre|table|thead|tbody|tfoot|ul|ol)>/g;
const ROW = /<\/tr>/g;
const CELL = /<\/t[dh]> ?<t[dh][^>]*>/g;
const BREAK = /<br ?\/?>/g;
const TAG = /<[^>]*>/g;
const MARK = '\uE000';
const MARKS = /\uE000 ?/g;

/**
 * Convert sanitized HTML to plain text.
 * @param html output of `sanitizeDescription`.
 * @returns the text with the shape described in the module docstring, trimmed; may be empty.
 */
export function sanitizedHtmlToText(html: string): string {
  // A private-use character marks the list items this function creates, so a "*" the author typed
  // is left as it is.
  const text = (html.includes(MARK) ? html.replaceAll(MARK, '') : html)
    // Source line breaks inside text mean nothing in HTML: collapse first, then add the real ones.
    .replace(WHITESPACE, ' ')
    .replace(BREAK, '\n')
    .replace(LI_OPEN, `\n${MARK}`)
    .replace(LI_CLOSE, '')
    .replace(CELL, '  ')
    .replace(ROW, '\n')
    .replace(BLOCK, '\n\n')
    .replace(TAG, '');
  const decoded = text.includes('&') ? text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&') : text;
  return decoded
    .replace(/ *\n[ \n]*/g, (run) => (run.split('\n').length > 2 ? '\n\n' : '\n'))
    .replace(MARKS, ' * ')
    .replace(/ \* (?=\n|$)/g, ' *')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
