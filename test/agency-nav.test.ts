/**
 * NAV job vacancy feed end to end: a loopback server answers on the feed's real paths
 * (`/api/publicToken`, `/api/v1/feed`, the pages' `next_url`s, `/api/v1/feedentry/{uuid}`), read by the
 * production fetcher, the `nav` connector, enrichment, the quality gate and the ledger.
 *
 * No recorded feed page or feed entry exists under a licence (shared data `nav-feed/SOURCE.md`), so the
 * payloads are written here in the shapes of NAV's own documentation, "NAV Job Vacancy Feed"
 * (navikt/pam-stilling-feed `docs/index.markdown`: Feed page, Feed item, Feed entry), with values of the
 * kind its test ad carries (`src/test/resources/ad_dto.json`: Leka kommune, STYRK08 2342).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from './helpers/agency-server.ts';
import { itChangesNothingOnFailure, useAgencyPipeline } from './helpers/agency-pipeline.ts';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwdWJsaWMifQ.c2lnbmF0dXJl';
const A = '10584075-1e5c-4a83-bf49-c80bcab83018';
const B = '2b7e1c0a-95c4-4f4e-9d3e-6a1c3c4f0b01';
const C = '7f3d2a11-0c6e-4b8f-a1d4-5e9b8c7a6d02';
const D = 'c0ffee00-1111-4222-8333-944445555666';

const item = (uuid: string, status: 'ACTIVE' | 'INACTIVE', title: string, businessName: string) => ({
  id: `entry-${uuid}-${status}`,
  url: `/api/v1/feedentry/${uuid}`,
  title,
  content_text: '',
  date_modified: '2026-11-20T07:47:08.935Z',
  _feed_entry: { uuid, status, title, businessName, municipal: 'LEKA', sistEndret: '2026-11-20T07:47:08.935Z' },
});

const entry = (uuid: string, json: Record<string, unknown>, status = 'ACTIVE') => ({ uuid, json: { uuid, ...json }, sistEndret: '2026-11-20T08:06:08.355Z', status });

const KINDERGARTEN = entry(A, {
  published: '2026-11-18T00:00:00Z',
  expires: '2099-04-23T00:00:00Z',
  updated: '2026-11-20T08:06:08.355Z',
  workLocations: [{ country: 'NORGE', address: 'Leknesveien 67', city: 'LEKA', postalCode: '7994', county: 'TRØNDELAG', municipal: 'LEKA' }],
  title: 'Vi søker pedagogisk leder til barnehagen',
  description: '<p>Leka kommune søker pedagogisk leder.</p><script>x()</script>',
  applicationUrl: 'https://www.leka.kommune.no/jobb/pedagogisk-leder',
  applicationDue: '2099-04-23T00:00:00Z',
  occupationCategories: [{ level1: 'Utdanning', level2: 'Barnehage' }],
  categoryList: [{ categoryType: 'STYRK08', code: '2342', name: 'Førskolelærere', score: 1 }],
  jobtitle: 'Pedagogisk leder (barnehage/førskole)',
  link: `https://arbeidsplassen.nav.no/stillinger/stilling/${A}`,
  employer: { name: 'Leka kommune', orgnr: '944350675', homepage: 'https://www.leka.kommune.no' },
  engagementtype: 'Fast',
  extent: 'Heltid',
  sector: 'Offentlig',
});
const DEVELOPER = entry(B, {
  published: '2026-11-19T09:00:00+01:00',
  expires: '2099-01-31T00:00:00Z',
  workLocations: [{ country: 'NORGE', city: 'OSLO', postalCode: '0150', county: 'OSLO', municipal: 'OSLO' }],
  title: 'Systemutvikler backend',
  description: '<p>Vi utvikler betalingsløsninger.</p>',
  sourceurl: 'https://jobs.example.no/systemutvikler',
  categoryList: [{ categoryType: 'STYRK08', code: '2512', name: 'Programvareutviklere', score: 1 }],
  link: `https://arbeidsplassen.nav.no/stillinger/stilling/${B}`,
  employer: { name: 'Betaling AS', orgnr: '999999999' },
  engagementtype: 'Fast',
  extent: 'Deltid',
});
const NURSE = entry(C, {
  published: '2026-11-19T10:00:00Z',
  workLocations: [{ country: 'NORGE', city: 'BERGEN', county: 'VESTLAND', municipal: 'BERGEN' }],
  title: 'Sykepleier, vikariat',
  link: `https://arbeidsplassen.nav.no/stillinger/stilling/${C}`,
  employer: { name: 'Bergen kommune' },
  engagementtype: 'Vikariat',
});
const WELDER = entry(D, { title: 'Sveiser', employer: { name: 'Verft AS' }, workLocations: [{ country: 'NORGE', city: 'ULSTEINVIK' }] });

const page = (id: string, items: unknown[], next: string | null) => ({
  version: '1.0',
  title: 'Stillingsfeed',
  home_page_url: 'https://arbeidsplassen.nav.no',
  feed_url: `/api/v1/feed/${id}`,
  description: 'Stillinger fra arbeidsplassen.nav.no',
  next_url: next,
  id,
  next_id: next ? next.split('/').pop() : null,
  items,
});

describe('NAV job vacancy feed over a loopback server on the real paths', () => {
  const p = useAgencyPipeline('nav', 'norway');

  beforeAll(() => {
    const s = p.server;
    s.set('/api/publicToken', { body: `Current public token for Nav Job Vacancy Feed:\n${TOKEN}\n`, type: 'text/plain' });
    s.set('/api/v1/feed', { json: page('p1', [item(A, 'ACTIVE', 'Pedagogisk leder', 'Leka kommune'), item(B, 'ACTIVE', 'Systemutvikler', 'Betaling AS')], '/api/v1/feed/p2') });
    s.set('/api/v1/feed/p2', { json: page('p2', [item(C, 'ACTIVE', 'Sykepleier', 'Bergen kommune')], null) });
    for (const e of [KINDERGARTEN, DEVELOPER, NURSE, WELDER]) s.set(`/api/v1/feedentry/${e.uuid}`, { json: e });
  });

  it('follows the pages, reads each ad with the bearer token, and maps the structured fields as published', async () => {
    const report = await p.crawl();
    expect(report).toMatchObject({ outcome: 'fetched', counts: { created: 3 } });
    const hits = p.server.since(0);
    expect(hits.map((h) => h.url)).toEqual(['/api/publicToken', '/api/v1/feed', `/api/v1/feedentry/${A}`, `/api/v1/feedentry/${B}`, '/api/v1/feed/p2', `/api/v1/feedentry/${C}`]);
    for (const h of hits.slice(1)) expect(h.headers['authorization']).toBe(`Bearer ${TOKEN}`);
    // The first load asks only for the last six months of the feed.
    expect(Date.parse(String(hits[1]!.headers['if-modified-since']))).toBeLessThan(Date.now() - 180 * 86_400_000);

    const rows = await p.rows();
    const kindergarten = rows.get(A)!;
    expect(kindergarten).toMatchObject({
      status: 'live',
      served: true,
      title: 'Vi søker pedagogisk leder til barnehagen',
      company_name: 'Leka kommune',
      country: 'NO',
      employment_type: 'Full-time',
      apply_url: 'https://www.leka.kommune.no/jobb/pedagogisk-leder',
      posting_url: `https://arbeidsplassen.nav.no/stillinger/stilling/${A}`,
      source_type: 'public_agency',
      provider_type: 'government',
    });
    expect(kindergarten.posted_at.toISOString()).toBe('2026-11-18T00:00:00.000Z');
    expect(kindergarten.description_html).toBe('<p>Leka kommune søker pedagogisk leder.</p>');
    expect(kindergarten.field_sources).toMatchObject({ location: 'published', employment_type: 'published', posted_at: 'published', description: 'published', salary: 'absent' });
    expect(rows.get(B)).toMatchObject({ employment_type: 'Part-time', apply_url: 'https://jobs.example.no/systemutvikler', served: true });
    expect(rows.get(C)).toMatchObject({ employment_type: 'Temporary', company_name: 'Bergen kommune' });
  });

  it('recrawls an unchanged feed with If-None-Match on the last page: 304, no row touched', async () => {
    const before = await p.contents();
    const from = p.server.hits.length;
    expect((await p.crawl()).outcome).toBe('not_modified');
    const feedHits = p.server.since(from).filter((h) => h.url.startsWith('/api/v1/'));
    expect(feedHits.map((h) => [h.url, h.status])).toEqual([['/api/v1/feed/p2', 304]]);
    expect(feedHits[0]!.headers['if-none-match']).toBeTruthy();
    expect(await p.contents()).toEqual(before);
  });

  itChangesNothingOnFailure(p, 'a feed page', '/api/v1/feed/p2');

  it('changes nothing when an ad entry fails mid-crawl (500)', async () => {
    const before = await p.snapshot();
    p.server.set('/api/v1/feed/p2', { json: page('p2', [item(C, 'ACTIVE', 'Sykepleier', 'Bergen kommune'), item(D, 'ACTIVE', 'Sveiser', 'Verft AS')], null) });
    p.server.set(`/api/v1/feedentry/${D}`, FAILURES['500']!);
    expect((await p.crawl()).outcome).toBe('failed');
    expect(await p.snapshot()).toEqual(before);
    p.server.set(`/api/v1/feedentry/${D}`, { json: WELDER });
  });

  it('closes an ad the feed marks INACTIVE as expired_upstream, and reads new ads from the grown page', async () => {
    p.server.set('/api/v1/feed/p2', { json: page('p2', [item(C, 'ACTIVE', 'Sykepleier', 'Bergen kommune'), item(D, 'ACTIVE', 'Sveiser', 'Verft AS'), item(B, 'INACTIVE', 'Systemutvikler', 'Betaling AS')], null) });
    const report = await p.crawl();
    expect(report.outcome).toBe('fetched');
    const rows = await p.rows();
    expect(rows.get(B)).toMatchObject({ status: 'closed', closed_reason: 'expired_upstream', served: false });
    expect(rows.get(D)).toMatchObject({ status: 'live', title: 'Sveiser' });
    expect(rows.get(A)).toMatchObject({ status: 'live', missed_crawls: 0 });
  });

  it('closes an ad whose entry left the feed (404) as not_seen after the usual count of good crawls', async () => {
    p.server.answers.delete(`/api/v1/feedentry/${C}`);
    p.server.set('/api/v1/feed/p2', { json: page('p2', [item(C, 'ACTIVE', 'Sykepleier', 'Bergen kommune')], '/api/v1/feed/p3') });
    p.server.set('/api/v1/feed/p3', { json: page('p3', [item(A, 'ACTIVE', 'Pedagogisk leder', 'Leka kommune')], null) });
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get(C)).toMatchObject({ status: 'live', missed_crawls: 1 });
    p.server.set('/api/v1/feed/p3', { json: page('p3', [item(A, 'ACTIVE', 'Pedagogisk leder', 'Leka kommune'), item(D, 'ACTIVE', 'Sveiser', 'Verft AS')], null) });
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get(C)).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
  });
});
