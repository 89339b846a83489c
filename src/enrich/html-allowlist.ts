/**
 * Allow-list HTML serializer: untrusted HTML in, HTML that contains only the tags and attributes of
 * an allow-list out, in one streaming pass of htmlparser2 (the parser sanitize-html itself runs on).
 *
 * Why not sanitize-html itself: the policy below is exactly the one this project configured
 * sanitize-html with (description.ts), but sanitize-html's general machinery (frames per element,
 * attribute filters, transform hooks, several escaping passes) was the largest single cost of the
 * enrichment step (CPU profile over the 7,889 recorded Ashby postings; docs/enrichment-quality.md,
 * Throughput). The safety argument does not depend on the input being well-formed:
 * - parsing, entity decoding and the HTML tokenizer's rules are htmlparser2's;
 * - nothing from the input is copied to the output except (a) text, escaped (`&`, `<`, `>`), and (b)
 *   an `href` whose decoded, trimmed value starts with `http://`, `https://` or `mailto:`, escaped
 *   for a double-quoted attribute (`&`, `<`, `>`, `"`), and digit-only table spans;
 * - tag names in the output come from the allow-list constants, never from the input;
 * - the content of script-like elements is dropped whole, nested or not;
 * - every element opened in the output is closed, in order, at the latest at the end.
 * The equivalence with the sanitize-html configuration it replaces is tested on every recorded
 * fixture description (description.test.ts), along with the usual attack vectors.
 */
import { Parser } from 'htmlparser2';

/** What the serializer lets through. */
export interface AllowList {
  /** Tags kept, lower case. */
  tags: ReadonlySet<string>;
  /** Tags renamed before the allow-list applies (h1 → h3). */
  rename: Readonly<Record<string, string>>;
  /** Tags whose whole content is dropped (script, style, ...). */
  dropContent: ReadonlySet<string>;
  /** Kept tags removed when they hold no visible text (Ashby's empty <p> spacers). */
  dropIfEmpty: ReadonlySet<string>;
  /** Schemes a link may use, as a test on the trimmed href; other links are unwrapped. */
  linkScheme: RegExp;
  /** The `rel` every kept link gets. */
  linkRel: string;
}

interface Frame {
  /** Tag as emitted, or null when the element was unwrapped. */
  emitted: string | null;
  /** Output length before the opening tag, to take an empty element back out. */
  start: number;
  hasText: boolean;
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(s: string): string {
  return escapeText(s).replace(/"/g, '&quot;');
}

/**
 * Serialize `html` through `allow`.
 * @returns HTML with only allowed tags (each closed), a link's href and rel, and digit-only
 *          colspan/rowspan on table cells; text escaped. May be empty.
 */
export function serializeAllowed(html: string, allow: AllowList): string {
  let out = '';
  const stack: Frame[] = [];
  /** Depth inside a dropped element (script, style, ...): everything there is discarded. */
  let skip = 0;

  const parser = new Parser(
    {
      onopentag(rawName, attribs) {
        if (skip > 0 || allow.dropContent.has(rawName)) {
          skip++;
          return;
        }
        const name = allow.rename[rawName] ?? rawName;
        if (!allow.tags.has(name)) {
          stack.push({ emitted: null, start: out.length, hasText: false });
          return;
        }
        if (name === 'a') {
          const href = attribs['href']?.trim();
          if (!href || !allow.linkScheme.test(href)) {
            stack.push({ emitted: null, start: out.length, hasText: false });
            return;
          }
          stack.push({ emitted: 'a', start: out.length, hasText: false });
          out += `<a href="${escapeAttribute(href)}" rel="${allow.linkRel}">`;
          return;
        }
        if (name === 'br') {
          stack.push({ emitted: null, start: out.length, hasText: false });
          out += '<br />';
          return;
        }
        let attributes = '';
        if (name === 'td' || name === 'th') {
          for (const span of ['colspan', 'rowspan']) {
            const value = attribs[span]?.trim();
            if (value && /^\d{1,3}$/.test(value)) attributes += ` ${span}="${value}"`;
          }
        }
        stack.push({ emitted: name, start: out.length, hasText: false });
        out += `<${name}${attributes}>`;
      },
      onclosetag() {
        if (skip > 0) {
          skip--;
          return;
        }
        // htmlparser2 reports every opened element closed (explicitly, implied, or at the end), in order.
        const frame = stack.pop();
        if (!frame) return;
        if (frame.emitted !== null) {
          if (allow.dropIfEmpty.has(frame.emitted) && !frame.hasText) out = out.slice(0, frame.start);
          else out += `</${frame.emitted}>`;
        }
        const parent = stack[stack.length - 1];
        if (parent && frame.hasText) parent.hasText = true;
      },
      ontext(text) {
        if (skip > 0) return;
        out += escapeText(text);
        const top = stack[stack.length - 1];
        if (top && !top.hasText && text.trim()) top.hasText = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: false },
  );
  parser.write(html);
  parser.end();
  return out;
}
