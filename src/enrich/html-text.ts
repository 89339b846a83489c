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

/**
 * One scan over the sanitized HTML: each alternative is a construct to rewrite, in priority order
 * (an item's closing </p></li> before a plain </p>). No alternative starts with an optional part, so
 * the scan does not try each one at every position of the text.
 */
const MARKUP =
  /(<br ?\/?>)|(<li>(?:<(?:p|div)>| )*)|((?:<\/(?:p|div)> ?)*<\/li>)|(<\/t[dh]> ?<t[dh][^>]*>)|(<\/tr>)|(<\/?(?:p|div|h3|h4|blockquote|pre|table|thead|tbody|tfoot|ul|ol)>)|(<[^>]*>)|([\t\n\r\f\v\u00a0\u200b\u2028\u2029][\s\u00a0\u200b]*| {2,})/g;
/** Private-use characters for the list markers and cell gaps this function creates. */
const MARK = '\uE000';
const CELL = '\uE001';
const LAYOUT = /(\uE000 ?(?=\n|$))|(\uE000 ?)|( *\n[ \n]*)|( {2,})/g;

function markup(_match: string, br?: string, liOpen?: string, liClose?: string, cell?: string, row?: string, block?: string, tag?: string): string {
  if (br !== undefined || row !== undefined) return '\n';
  if (liOpen !== undefined) return `\n${MARK}`;
  if (liClose !== undefined || tag !== undefined) return '';
  if (cell !== undefined) return CELL;
  if (block !== undefined) return '\n\n';
  // Source whitespace: line breaks in HTML text are spaces.
  return ' ';
}

function layout(_match: string, emptyItem?: string, item?: string, lineBreaks?: string): string {
  if (emptyItem !== undefined) return ' *';
  if (item !== undefined) return ' * ';
  if (lineBreaks !== undefined) {
    const first = lineBreaks.indexOf('\n');
    return lineBreaks.indexOf('\n', first + 1) >= 0 ? '\n\n' : '\n';
  }
  return ' ';
}

/**
 * Convert sanitized HTML to plain text.
 * @param html output of `sanitizeDescription`.
 * @returns the text with the shape described in the module docstring, trimmed; may be empty.
 */
export function sanitizedHtmlToText(html: string): string {
  const input = html.includes(MARK) || html.includes(CELL) ? html.replaceAll(MARK, '').replaceAll(CELL, '') : html;
  const text = input.replace(MARKUP, markup);
  const decoded = text.includes('&') ? text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&') : text;
  return decoded.replace(LAYOUT, layout).replaceAll(CELL, '  ').trim();
}
