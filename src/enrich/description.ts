/**
 * Description sanitizing: untrusted source HTML in, a conservative safe subset of HTML plus its plain
 * text out.
 *
 * Why: the ledger serves `description` as HTML (spec: Resources › Job.description) to clients that may
 * render it, so nothing that can run script, load a resource or restyle a page may survive
 * (ARCHITECTURE.md: "Untrusted HTML is sanitized (`sanitize-html`) before it is stored or served, and
 * plain text for search is extracted with a library (`html-to-text`)"). For throughput the same
 * policy is applied by html-allowlist.ts on htmlparser2, and the text is read from the sanitized HTML
 * by html-text.ts (see those modules; the CPU profile is in docs/enrichment-quality.md).
 *
 * Real inputs this copes with: Ashby `descriptionHtml` (every block carries a `style` attribute, empty
 * `<p>` spacers), Greenhouse `content` (unescaped by the connector; `<div class>` wrappers, `<span
 * data-*>`), Lever `description` + `lists[].content` + `additional` concatenated by the connector
 * (`<li>` inside bare `<div>`s), and plain text from sources that have no HTML.
 */
import { serializeAllowed, type AllowList } from './html-allowlist.ts';
import { sanitizedHtmlToText } from './html-text.ts';

/** A sanitized description: safe HTML for display and its plain text for search and parsing. */
export interface SanitizedDescription {
  /** HTML restricted to the allow-list below; never empty. */
  html: string;
  /** Plain text of `html`: paragraphs separated by blank lines, no wrapping, no link URLs; never empty. */
  text: string;
}

/** Schemes a link may use; anything else (javascript:, data:, relative paths) loses its link. */
const LINK_SCHEME = /^(https?:\/\/|mailto:)/i;

/**
 * The allow-list. Headings are folded to h3/h4 so a description never outranks the page it is shown
 * in; `div` stays as a bare block so Lever's and Greenhouse's div-only layouts keep their line breaks;
 * `span`, `font`, `img` and the like are unwrapped or dropped; no attribute survives except a link's
 * href (http, https, mailto; the link gets `rel="nofollow noopener"`, any other link is unwrapped) and
 * table cell spans. The content of script-like elements is dropped whole. Ashby separates paragraphs
 * with empty <p>s: paragraphs, items and inline emphasis without visible text are removed.
 *
 * This is the policy the project first ran through sanitize-html (ARCHITECTURE.md: "Untrusted HTML is
 * sanitized (`sanitize-html`)"); html-allowlist.ts applies it in one htmlparser2 pass for throughput,
 * and description.test.ts checks on every bundled fixture that both give the same HTML.
 */
export const DESCRIPTION_ALLOW_LIST: AllowList = {
  tags: new Set([
    'p', 'br', 'div', 'ul', 'ol', 'li', 'strong', 'b', 'em', 'i', 'u', 'h3', 'h4', 'a', 'blockquote', 'code', 'pre',
    'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td',
  ]),
  rename: { h1: 'h3', h2: 'h3', h5: 'h4', h6: 'h4' },
  dropContent: new Set(['script', 'style', 'textarea', 'option', 'noscript', 'iframe', 'object', 'embed', 'svg', 'math', 'title', 'head', 'template', 'xmp', 'plaintext', 'noembed', 'noframes', 'select']),
  dropIfEmpty: new Set(['p', 'li', 'strong', 'b', 'em', 'i', 'u']),
  linkScheme: LINK_SCHEME,
  linkRel: 'nofollow noopener',
};

/** True when the input contains at least one HTML tag; otherwise it is treated as plain text. */
function looksLikeHtml(input: string): boolean {
  return /<\/?[a-z][a-z0-9]*(\s[^>]*)?\/?>/i.test(input);
}

/** True when the HTML has block structure of its own; otherwise its line breaks are its structure. */
function hasBlocks(input: string): boolean {
  return /<(p|div|br|ul|ol|li|h[1-6]|table|tr|blockquote|pre|section|article)\b/i.test(input);
}

/** Text with a few inline tags ("Line one\n\nPara <b>2</b>"): blank lines → <p>, line breaks → <br>. */
function inlineHtmlToParagraphs(input: string): string {
  return input
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\u00a0]*\n+/)
    .map((para) => para.trim())
    .filter((para) => para.length > 0)
    .map((para) => `<p>${para.split('\n').map((line) => line.trim()).join('<br>')}</p>`)
    .join('');
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Turn plain text into safe HTML paragraphs, for sources that publish text only.
 *
 * Blank lines separate paragraphs (`<p>`); single line breaks inside a paragraph become `<br>`; all
 * markup characters are escaped, so the result is safe whatever the text contains.
 *
 * @param text plain text (any line endings); may be empty.
 * @returns HTML, or the empty string when the text has no visible characters.
 */
export function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t\u00a0]*\n+/)
    .map((para) => para.trim())
    .filter((para) => para.length > 0)
    .map((para) => `<p>${para.split('\n').map((line) => escapeHtml(line.trim())).join('<br>')}</p>`)
    .join('');
}

/**
 * Sanitize a source's description.
 *
 * @param html raw description from the source: HTML (any of the shapes in the module docstring) or
 *             plain text (no tags), which is first turned into paragraphs with {@link textToHtml}.
 * @returns `{ html, text }` with `html` restricted to the allow-list (links get
 *          `rel="nofollow noopener"`, headings become h3/h4, no style/class/on* attributes, no script,
 *          iframe or img) and `text` its plain-text rendering (no wrapping, no link URLs, headings in
 *          their own case); `undefined` when the input is missing or has no visible text.
 */
export function sanitizeDescription(html: string | undefined): SanitizedDescription | undefined {
  if (html === undefined || !html.trim()) return undefined;
  const source = !looksLikeHtml(html) ? textToHtml(html) : hasBlocks(html) ? html : inlineHtmlToParagraphs(html);
  const clean = serializeAllowed(source, DESCRIPTION_ALLOW_LIST).trim();
  const text = sanitizedHtmlToText(clean);
  if (!clean || !text) return undefined;
  return { html: clean, text };
}
