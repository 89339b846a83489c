/**
 * Reading schema.org JobPosting JSON-LD out of pages. The blocks follow the example of Google Search
 * Central's "Job posting (JobPosting) structured data" page
 * (developers.google.com/search/docs/appearance/structured-data/job-posting), then are broken the ways
 * real CMSs break them.
 */
import { describe, expect, it } from 'vitest';
import { readPage } from './job-posting-json-ld.ts';

const page = (...blocks: string[]) => `<!doctype html><html><head><title>Jobs</title>${blocks.map((b) => `<script type="application/ld+json">${b}</script>`).join('\n')}</head><body><a href="/careers/1">One</a><a href='https://other.example/x'>x</a></body></html>`;

const GOOGLE_EXAMPLE = `{
  "@context" : "https://schema.org/",
  "@type" : "JobPosting",
  "title" : "Software Engineer",
  "description" : "<p>Google aspires to be an organization that reflects the globally diverse audience that our products and technology serve.</p>",
  "identifier": { "@type": "PropertyValue", "name": "Google", "value": "1234567" },
  "datePosted" : "2017-01-18",
  "validThrough" : "2017-03-18T00:00",
  "employmentType" : "CONTRACTOR",
  "hiringOrganization" : { "@type" : "Organization", "name" : "Google", "sameAs" : "https://www.google.com", "logo" : "https://www.example.com/images/logo.png" },
  "jobLocation": { "@type": "Place", "address": { "@type": "PostalAddress", "streetAddress": "1600 Amphitheatre Pkwy", "addressLocality": "Mountain View", "addressRegion": "CA", "postalCode": "94043", "addressCountry": "US" } },
  "baseSalary": { "@type": "MonetaryAmount", "currency": "USD", "value": { "@type": "QuantitativeValue", "value": 40.00, "unitText": "HOUR" } }
}`;

describe('readPage', () => {
  it("reads Google's documented example field by field", () => {
    const { postings, unreadable, links } = readPage(page(GOOGLE_EXAMPLE));
    expect(unreadable).toBe(0);
    expect(links).toEqual(['/careers/1', 'https://other.example/x']);
    expect(postings).toEqual([
      {
        title: 'Software Engineer',
        descriptionHtml: expect.stringContaining('<p>Google aspires'),
        identifier: '1234567',
        postedAt: '2017-01-18T00:00:00.000Z',
        // No offset: read at UTC-12, the latest instant the page can mean.
        validThrough: '2017-03-18T12:00:00.000Z',
        employmentType: 'CONTRACTOR',
        hiringOrganization: { name: 'Google', sameAs: ['https://www.google.com'], logo: 'https://www.example.com/images/logo.png' },
        locations: [{ text: 'Mountain View, CA, US', city: 'Mountain View', region: 'CA', country: 'US' }],
        telecommute: false,
        applicantLocations: [],
        salary: { min: 40, max: 40, currency: 'USD', period: 'hourly' },
      },
    ]);
  });

  it('reads trailing commas, CDATA and comment wrappers, and entities in values', () => {
    const cdata = `//<![CDATA[
      {"@context": "https://schema.org", "@type": "JobPosting", "title": "R&amp;D Engineer", "jobLocationType": "TELECOMMUTE",
       "applicantLocationRequirements": [{"@type": "Country", "name": "USA"}, {"@type": "Country", "name": "Canada"},],
       "baseSalary": {"currency": "eur", "value": {"minValue": "50,000", "maxValue": 70000, "unitText": "YEAR",},},}
    //]]>`;
    const comment = `<!-- {"@type": "JobPosting", "title": "Night Nurse", "validThrough": "2030-05-01T17:00:00+02:00",} -->`;
    const { postings, unreadable } = readPage(page(cdata, comment));
    expect(unreadable).toBe(0);
    expect(postings.map((p) => p.title)).toEqual(['R&D Engineer', 'Night Nurse']);
    expect(postings[0]).toMatchObject({ telecommute: true, applicantLocations: ['USA', 'Canada'], salary: { min: 50000, max: 70000, currency: 'EUR', period: 'annual' } });
    expect(postings[1]!.validThrough).toBe('2030-05-01T15:00:00.000Z');
  });

  it('reads a block HTML-escaped as a whole and a description that is escaped HTML', () => {
    const escaped = `{&quot;@type&quot;: &quot;JobPosting&quot;, &quot;title&quot;: &quot;Welder&quot;, &quot;description&quot;: &quot;&amp;lt;p&amp;gt;Weld &amp;amp;amp; grind&amp;lt;/p&amp;gt;&quot;}`;
    const { postings } = readPage(page(escaped));
    expect(postings).toHaveLength(1);
    expect(postings[0]!.title).toBe('Welder');
    expect(postings[0]!.descriptionHtml).toBe('<p>Weld &amp; grind</p>');
  });

  it('finds every JobPosting in @graph, arrays, nested entities and several blocks', () => {
    const graph = JSON.stringify({
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Acme' },
        { '@type': 'WebPage', mainEntity: { '@type': ['JobPosting'], title: 'Nested' } },
        { '@type': 'https://schema.org/JobPosting', title: 'Graph' },
      ],
    });
    const array = JSON.stringify([{ '@type': 'schema:JobPosting', title: 'First of array' }, { '@type': 'JobPosting', title: 'Second of array' }, { '@type': 'Organization', name: 'Acme' }]);
    const { postings } = readPage(page(graph, array));
    expect(postings.map((p) => p.title)).toEqual(['Nested', 'Graph', 'First of array', 'Second of array']);
  });

  it('counts a block that is not JSON even after repair, and reads the others', () => {
    const { postings, unreadable } = readPage(page('<div>not json</div>', '', '{"@type": "JobPosting", "title": "Kept"}'));
    expect(postings.map((p) => p.title)).toEqual(['Kept']);
    expect(unreadable).toBe(1);
  });

  it('ignores other script types and pages without structured data', () => {
    const html = '<html><script type="application/json">{"@type":"JobPosting","title":"No"}</script><script>var x = {"@type":"JobPosting"}</script></html>';
    expect(readPage(html).postings).toEqual([]);
  });
});
