import { describe, expect, it } from 'vitest';
import { DESCRIPTION_ALLOW_LIST, sanitizeDescription, textToHtml } from './description.ts';

describe('sanitizeDescription', () => {
  it('strips Ashby styles and empty spacer paragraphs, folds headings (ramp.json "Customer Experience Agent", opening)', () => {
    const html =
      '<h1><strong>About Ramp</strong></h1><p style="min-height:1.5em">At Ramp, we’re rethinking how modern finance teams function in the age of AI.</p><p style="min-height:1.5em"></p>';
    expect(sanitizeDescription(html)).toEqual({
      html: '<h3><strong>About Ramp</strong></h3><p>At Ramp, we’re rethinking how modern finance teams function in the age of AI.</p>',
      text: 'About Ramp\n\nAt Ramp, we’re rethinking how modern finance teams function in the age of AI.',
    });
  });

  it('removes everything that can run script or load a resource', () => {
    const html =
      '<p onclick="steal()" class="x" style="color:red">Hello <a href="javascript:alert(1)">bad</a> <a href="https://example.com/jobs" target="_blank" onmouseover="x()">good</a></p>' +
      '<img src="https://tracker.example/p.gif" onerror="alert(1)"><script>alert(1)</script><iframe src="https://evil.example"></iframe><style>p{display:none}</style>' +
      '<object data="x.swf"></object><svg><script>alert(2)</script></svg>';
    const result = sanitizeDescription(html);
    expect(result?.html).toBe('<p>Hello bad <a href="https://example.com/jobs" rel="nofollow noopener">good</a></p>');
    expect(result?.text).toBe('Hello bad good');
  });

  it('keeps mailto links and drops relative and data: links', () => {
    const result = sanitizeDescription('<p><a href="mailto:jobs@example.com">Mail us</a>, <a href="/apply">apply</a>, <a href="data:text/html,x">x</a></p>');
    expect(result?.html).toBe('<p><a href="mailto:jobs@example.com" rel="nofollow noopener">Mail us</a>, apply, x</p>');
  });

  it('copes with Greenhouse-shaped content: class-carrying wrappers, h2 headings, data-* spans', () => {
    const html = '<div class="content-intro"><h2>About us:</h2>\n<p><span data-sheets-root="1">We build tools for teams.</span></p></div><ul><li>Write code</li><li>Review code</li></ul>';
    expect(sanitizeDescription(html)).toEqual({
      html: '<div><h3>About us:</h3>\n<p>We build tools for teams.</p></div><ul><li>Write code</li><li>Review code</li></ul>',
      text: 'About us:\n\nWe build tools for teams.\n\n * Write code\n * Review code',
    });
  });

  it('copes with Lever-shaped lists (<li> directly inside <div>) concatenated after the description', () => {
    const html = '<div><p>We design the listening experience.</p></div><h3>What You\'ll Do</h3><div>\n<li><p>Build clients.</p></li>\n<li><p>Ship often.</p></li>\n</div>';
    const result = sanitizeDescription(html);
    // List items keep their bullet even without a <ul> around them, one per line.
    expect(result?.text).toBe("We design the listening experience.\n\nWhat You'll Do\n\n * Build clients.\n * Ship often.");
  });

  it('keeps table basics without attributes other than spans', () => {
    const result = sanitizeDescription('<table border="1" style="x"><tr><th colspan="2" class="h">Pay</th></tr><tr><td>Base</td><td>€60k</td></tr></table>');
    expect(result?.html).toBe('<table><tr><th colspan="2">Pay</th></tr><tr><td>Base</td><td>€60k</td></tr></table>');
    expect(result?.text).toContain('Base');
  });

  it('turns plain text into paragraphs', () => {
    expect(sanitizeDescription('First line\nsecond line\n\nSecond paragraph with 5 < 10 & more')).toEqual({
      html: '<p>First line<br />second line</p><p>Second paragraph with 5 &lt; 10 &amp; more</p>',
      text: 'First line\nsecond line\n\nSecond paragraph with 5 < 10 & more',
    });
  });

  it('keeps the line structure of text that carries only inline tags', () => {
    expect(sanitizeDescription('Intro\n\nWe offer <b>equity</b>')?.html).toBe('<p>Intro</p><p>We offer <b>equity</b></p>');
  });

  it('is undefined when nothing visible is left', () => {
    expect(sanitizeDescription(undefined)).toBeUndefined();
    expect(sanitizeDescription('')).toBeUndefined();
    expect(sanitizeDescription('   \n ')).toBeUndefined();
    expect(sanitizeDescription('<p style="min-height:1.5em"></p><p>&nbsp;</p>')).toBeUndefined();
    expect(sanitizeDescription('<script>alert(1)</script><img src=x>')).toBeUndefined();
  });
});

describe('textToHtml', () => {
  it('escapes markup and splits paragraphs on blank lines', () => {
    expect(textToHtml('<b>not bold</b>\r\n\r\n"quoted" & done')).toBe('<p>&lt;b&gt;not bold&lt;/b&gt;</p><p>&quot;quoted&quot; &amp; done</p>');
  });

  it('is empty for blank text', () => {
    expect(textToHtml(' \n\n ')).toBe('');
  });
});

describe('sanitizeDescription text shape', () => {
  it('renders ordered lists, line breaks, tables and pre as text', () => {
    const result = sanitizeDescription('<p>Line one<br>Line two</p><ol><li>First</li><li>Second</li></ol><table><tr><th>Level</th><th>Pay</th></tr><tr><td>L1</td><td>$100</td></tr></table><pre>a  b</pre>');
    expect(result?.text).toBe('Line one\nLine two\n\n * First\n * Second\n\nLevel  Pay\nL1  $100\n\na b');
  });

  it('decodes entities and collapses whitespace', () => {
    expect(sanitizeDescription('<p>Fish &amp; chips\n\n   &nbsp;and&#160;more</p>')?.text).toBe('Fish & chips and more');
  });
});

describe('sanitizeDescription: attack vectors', () => {
  it.each([
    ['<p>Hi<script>alert(1)</script></p>', '<p>Hi</p>'],
    ['<p><img src=x onerror=alert(1)>text</p>', '<p>text</p>'],
    ['<p onclick="alert(1)" style="color:red">text</p>', '<p>text</p>'],
    ['<a href="&#106;avascript:alert(1)">x</a>', '<p>x</p>'],
    ['<a href=" javascript:alert(1)">x</a>', '<p>x</p>'],
    ['<a href="JaVaScRiPt:alert(1)">x</a>', '<p>x</p>'],
    ['<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', '<p>x</p>'],
    ['<a href="//evil.example/">x</a>', '<p>x</p>'],
    ['<a href=\'https://ok.example/"onmouseover="alert(1)\'>x</a>', '<p><a href="https://ok.example/&quot;onmouseover=&quot;alert(1)" rel="nofollow noopener">x</a></p>'],
    ['<svg><script>alert(1)</script><p>inside svg</p></svg><p>after</p>', '<p>after</p>'],
    ['<noscript><p>hidden</p><noscript>deeper</noscript>still</noscript><p>shown</p>', '<p>shown</p>'],
    ['<style>p{}</style><iframe src="https://evil.example"></iframe><p>ok</p>', '<p>ok</p>'],
    ['<p><!-- <script>alert(1)</script> -->text</p>', '<p>text</p>'],
    ['<p>5 &lt; 6 &amp;&amp; 7 &gt; 3 &lt;script&gt;</p>', '<p>5 &lt; 6 &amp;&amp; 7 &gt; 3 &lt;script&gt;</p>'],
    ['<ul><li>one<li>two</ul><p>unclosed <b>bold', '<ul><li>one</li><li>two</li></ul><p>unclosed <b>bold</b></p>'],
    ['<table><tr><td colspan="2" onclick="x">a</td><td rowspan="x">b</td></tr></table>', '<table><tr><td colspan="2">a</td><td>b</td></tr></table>'],
  ])('%s', (input, html) => {
    expect(sanitizeDescription(input)?.html).toBe(html);
  });
});

describe('sanitizeDescription: the same HTML as the sanitize-html policy it replaces', () => {
  it('on every bundled Ashby fixture description', async () => {
    const { default: sanitizeHtml } = await import('sanitize-html');
    const { readFixture, readManifest } = await import('../../test/helpers/fixtures.ts');
    const { mapAshbyJob } = await import('../ingest/connectors/ashby.ts');
    const link = /^(https?:\/\/|mailto:)/i;
    const reference = (html: string): string =>
      sanitizeHtml(html, {
        allowedTags: [...DESCRIPTION_ALLOW_LIST.tags],
        allowedAttributes: { a: ['href', 'rel'], th: ['colspan', 'rowspan'], td: ['colspan', 'rowspan'] },
        allowedSchemes: ['http', 'https', 'mailto'],
        allowedSchemesAppliedToAttributes: ['href'],
        allowProtocolRelative: false,
        disallowedTagsMode: 'discard',
        nonTextTags: [...DESCRIPTION_ALLOW_LIST.dropContent],
        transformTags: {
          ...DESCRIPTION_ALLOW_LIST.rename,
          a: (tagName: string, attribs: Record<string, string>) => {
            const href = attribs['href']?.trim();
            const kept: Record<string, string> = !href || !link.test(href) ? {} : { href, rel: 'nofollow noopener' };
            return { tagName, attribs: kept };
          },
        },
        exclusiveFilter: (frame) => DESCRIPTION_ALLOW_LIST.dropIfEmpty.has(frame.tag) && !frame.text.trim() && !frame.mediaChildren.length,
      })
        .replace(/<a>([\s\S]*?)<\/a>/g, '$1')
        .trim();
    let compared = 0;
    for (const entry of readManifest().filter((e) => e.provider === 'ashby')) {
      const payload = readFixture('ashby', entry.board) as { jobs: unknown[] };
      for (const raw of payload.jobs) {
        const html = mapAshbyJob(raw, { id: 'x', providerId: 'ashby', board: entry.board })?.descriptionHtml;
        if (!html) continue;
        expect(sanitizeDescription(html)?.html ?? '').toBe(reference(html));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(2000);
  });
});
