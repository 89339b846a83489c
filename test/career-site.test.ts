/**
 * Company career pages end to end (issue 17): a real HTTP server on loopback plays a company site
 * (robots.txt, a sitemap index with two sitemaps, a careers page, posting pages carrying schema.org
 * JobPosting JSON-LD), crawled through the guarded fetcher, the career_site connector, enrichment, the
 * quality gate and the ledger, then read back through /v1/jobs.
 *
 * No licensed recording of a real career page with a JobPosting block exists (shared data
 * `jsonld/SOURCE.md`), so the pages are written here in the shape Google Search Central documents
 * ("Job posting (JobPosting) structured data",
 * developers.google.com/search/docs/appearance/structured-data/job-posting), including the malformed
 * forms real CMSs produce.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import type { Job } from '../src/domain/job.ts';
import { loadFxRates } from '../src/enrich/fx.ts';
import { createConnectors } from '../src/ingest/connectors/registry.ts';
import { createFetcher, type GuardedFetcher } from '../src/ingest/fetcher.ts';
import { crawlTargets, type CrawlReport, type PipelineDeps } from '../src/ingest/pipeline.ts';
import { listTargets, upsertTarget } from '../src/store/crawl-targets.ts';
import { bearer, useTestApp } from './helpers/app.ts';
import { outcomes, testFetchConfig } from './helpers/corpus.ts';
import { useTestDatabase } from './helpers/database.ts';

const CONTACT = 'https://ops.example.org/crawler-contact';

interface Doc {
  status?: number;
  body: string;
  type?: string;
}

interface Hit {
  path: string;
  status: number;
  at: number;
  userAgent: string;
}

/** A site whose documents a test edits between crawls; ETags are content hashes, so an edit changes them. */
class Site {
  readonly docs = new Map<string, Doc>();
  readonly hits: Hit[] = [];
  private readonly server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const doc = this.docs.get(path);
    const answer = (status: number, body = '', headers: Record<string, string> = {}) => {
      this.hits.push({ path, status, at: performance.now(), userAgent: req.headers['user-agent'] ?? '' });
      res.writeHead(status, headers);
      res.end(body);
    };
    if (!doc) return answer(404, 'not found', { 'content-type': 'text/plain' });
    if (doc.status !== undefined && doc.status !== 200) return answer(doc.status, doc.body, { 'content-type': 'text/html' });
    const etag = `"${createHash('sha256').update(doc.body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) return answer(304, '', { etag });
    answer(200, doc.body, { etag, 'content-type': doc.type ?? 'text/html; charset=utf-8' });
  });
  base = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
  set(path: string, body: string, extra: Partial<Doc> = {}): void {
    this.docs.set(path, { body, ...extra });
  }
  /** Requests since `from` (an index into `hits`). */
  since(from: number): Hit[] {
    return this.hits.slice(from);
  }
}

const jsonLd = (...blocks: string[]) => blocks.map((b) => `<script type="application/ld+json">${b}</script>`).join('\n');
const html = (title: string, head: string, body = '') => `<!doctype html><html><head><title>${title}</title>${head}</head><body><h1>${title}</h1>${body}</body></html>`;

// Google's documented example, for the site's owner. Slashes escaped as JSON encoders for HTML do
// (`<\/script>`), or the page's own parser would end the block inside the description.
const ROBOTICS = JSON.stringify({
  '@context': 'https://schema.org/',
  '@type': 'JobPosting',
  title: 'Robotics Software Engineer',
  description: '<p>Build the control software of our warehouse robots.</p><ul><li>C++ and Rust</li></ul><script>alert(1)</script>',
  identifier: { '@type': 'PropertyValue', name: 'Acme Robotics', value: 'ACME-1' },
  datePosted: '2026-10-01',
  validThrough: '2099-12-31T23:59:00+01:00',
  employmentType: 'FULL_TIME',
  hiringOrganization: { '@type': 'Organization', name: 'Acme Robotics GmbH', logo: 'https://cdn.example.org/acme.png' },
  jobLocation: { '@type': 'Place', address: { '@type': 'PostalAddress', addressLocality: 'Berlin', postalCode: '10115', addressCountry: 'DE' } },
  baseSalary: { '@type': 'MonetaryAmount', currency: 'EUR', value: { '@type': 'QuantitativeValue', minValue: 70000, maxValue: 90000, unitText: 'YEAR' } },
  directApply: true,
}).replace(/<\//g, '<\\/');
// A CMS's output: CDATA wrapper, trailing commas, entities in a value, a remote job.
const SUPPORT = `//<![CDATA[
{
  "@context": "https://schema.org", "@type": "JobPosting",
  "title": "Support Lead (R&amp;D tools)",
  "description": "&lt;p&gt;Help our customers.&lt;/p&gt;",
  "datePosted": "2026-10-02T09:00:00+02:00",
  "hiringOrganization": {"@type": "Organization", "name": "Acme Robotics",},
  "jobLocationType": "TELECOMMUTE",
  "applicantLocationRequirements": {"@type": "Country", "name": "Germany",},
  "employmentType": ["PART_TIME",],
}
//]]>`;
// One page, two postings: one in an @graph, one in an array block.
const WAREHOUSE_GRAPH = JSON.stringify({
  '@context': 'https://schema.org',
  '@graph': [
    { '@type': 'WebPage', name: 'Warehouse roles' },
    { '@type': 'JobPosting', title: 'Warehouse Associate', identifier: 'ACME-3', hiringOrganization: { name: 'Acme Robotics' }, jobLocation: { address: { addressLocality: 'Hamburg', addressCountry: 'DE' } } },
  ],
});
const WAREHOUSE_ARRAY = JSON.stringify([{ '@type': 'JobPosting', title: 'Forklift Driver', identifier: 'ACME-4', jobLocation: { address: 'Hamburg, Germany' } }]);
// Closed by its own validThrough (a bare date: read at 23:59:59 UTC-12).
const EXPIRED = JSON.stringify({ '@type': 'JobPosting', title: 'Seasonal Picker', identifier: 'ACME-5', validThrough: '2020-01-31', hiringOrganization: 'Acme Robotics' });
// A posting the site publishes for another employer.
const PARTNER = JSON.stringify({ '@type': 'JobPosting', title: 'Field Technician', identifier: 'GLX-9', hiringOrganization: { '@type': 'Organization', name: 'Globex Corporation', sameAs: 'https://www.globex.example' } });

const ROBOTS = 'User-agent: *\nCrawl-delay: 0.05\nDisallow: /admin/\n\nSitemap: /sitemap_index.xml\n';
const sitemap = (paths: string[], base: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${base}${p}</loc></url>`).join('')}</urlset>`;
const careersPage = (paths: string[]) =>
  html('Careers at Acme Robotics', '', `${paths.map((p) => `<a href="${p}">${p}</a>`).join(' ')} <a href="/about">About</a> <a href="/admin/jobs">Admin</a> <a href="mailto:jobs@acme.example">Mail</a>`);

function publishSite(site: Site): void {
  const b = site.base;
  site.set('/robots.txt', ROBOTS, { type: 'text/plain' });
  site.set(
    '/sitemap_index.xml',
    `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${b}/sitemap-pages.xml</loc></sitemap><sitemap><loc>${b}/sitemap-jobs.xml</loc></sitemap></sitemapindex>`,
    { type: 'application/xml' },
  );
  site.set('/sitemap-pages.xml', sitemap(['/', '/about', '/blog/robots-in-2026'], b), { type: 'application/xml' });
  site.set('/sitemap-jobs.xml', sitemap(['/careers/robotics-engineer', '/careers/support-lead', '/careers/warehouse', '/jobs/seasonal-picker'], b), { type: 'application/xml' });
  site.set('/careers', careersPage(['/careers/robotics-engineer', '/careers/support-lead', '/careers/partner-role']));
  site.set('/careers/robotics-engineer', html('Robotics Software Engineer', jsonLd(ROBOTICS)));
  site.set('/careers/support-lead', html('Support Lead', jsonLd(SUPPORT)));
  site.set('/careers/warehouse', html('Warehouse', jsonLd(WAREHOUSE_GRAPH, WAREHOUSE_ARRAY)));
  site.set('/jobs/seasonal-picker', html('Seasonal Picker', jsonLd(EXPIRED)));
  site.set('/careers/partner-role', html('Field Technician', jsonLd(PARTNER)));
  site.set('/about', html('About', ''));
  site.set('/admin/jobs', html('Admin', jsonLd(ROBOTICS)));
}

describe('career_site connector over a loopback company site', () => {
  const ctx = useTestApp();
  let site: Site;
  let fetcher: GuardedFetcher;
  let deps: PipelineDeps;
  let targetId: string;

  const crawl = async (): Promise<CrawlReport> => {
    const rows = await listTargets(ctx.t.db, { ids: [targetId] });
    const [report] = await crawlTargets(deps, rows, { concurrency: 1 });
    return report!;
  };
  const rowsByTitle = async () => {
    const rows = await ctx.t.db.selectFrom('jobs').selectAll().where('provider_id', '=', 'career_site').execute();
    return new Map(rows.map((r) => [r.title, r]));
  };
  /** Everything a crawl could change: the rows, the events and the target's memory of the site. */
  const ledgerSnapshot = async () => ({
    jobs: await ctx.t.db
      .selectFrom('jobs')
      .select(['id', 'status', 'closed_reason', 'content_hash', 'last_verified_at', 'missed_crawls', 'withheld_kind', 'updated_at'])
      .where('provider_id', '=', 'career_site')
      .orderBy('id')
      .execute(),
    events: (await ctx.t.db.selectFrom('change_events').select('id').execute()).length,
    state: (await ctx.t.db.selectFrom('crawl_targets').select(['site_state', 'good_crawls']).where('id', '=', targetId).executeTakeFirstOrThrow()),
  });

  beforeAll(async () => {
    site = new Site();
    await site.start();
    publishSite(site);
    const config = loadConfig({ JOBLEDGER_CRAWLER_CONTACT_URL: CONTACT });
    fetcher = createFetcher(testFetchConfig({ userAgent: config.fetch.userAgent, retries: 0 }));
    deps = {
      db: ctx.t.db,
      connectors: createConnectors(config.sources, { maxPages: 50, delayMs: 0 }),
      fetcher,
      fx: loadFxRates(),
      log: pino({ level: 'silent' }),
      absence: { crawls: 2, minSeconds: 0 },
    };
    targetId = await upsertTarget(ctx.t.db, { providerId: 'career_site', board: `${site.base}/careers`, companyName: 'Acme Robotics' });
  });
  afterAll(async () => {
    await fetcher?.close();
    await site?.close();
  });

  it('discovers postings from the sitemap index and the careers page, politely, and reads every JobPosting', async () => {
    const report = await crawl();
    expect(outcomes([report])).toEqual(['fetched']);
    const hits = site.since(0);
    // robots.txt first; pages that name no job, robots-disallowed pages and mail links are never asked.
    expect(hits[0]!.path).toBe('/robots.txt');
    expect(hits.map((h) => h.path).sort()).toEqual(
      ['/robots.txt', '/sitemap_index.xml', '/sitemap-pages.xml', '/sitemap-jobs.xml', '/careers', '/careers/robotics-engineer', '/careers/support-lead', '/careers/warehouse', '/jobs/seasonal-picker', '/careers/partner-role'].sort(),
    );
    // Every request names the service and the operator's contact URL.
    for (const hit of hits) expect(hit.userAgent).toBe(`jobledger/0.1 (+${CONTACT})`);
    // Crawl-delay: 0.05 s between requests.
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.at - hits[i - 1]!.at).toBeGreaterThanOrEqual(45);

    const rows = await rowsByTitle();
    expect([...rows.keys()].sort()).toEqual(['Field Technician', 'Forklift Driver', 'Robotics Software Engineer', 'Seasonal Picker', 'Support Lead (R&D tools)', 'Warehouse Associate']);
    for (const row of rows.values()) expect([row.source_type, row.provider_type]).toEqual(['career_site', 'direct']);

    const robotics = rows.get('Robotics Software Engineer')!;
    expect(robotics).toMatchObject({
      status: 'live',
      served: true,
      company_name: 'Acme Robotics',
      employment_type: 'Full-time',
      country: 'DE',
      city: 'Berlin',
      salary_min: 70000,
      salary_max: 90000,
      salary_currency: 'EUR',
      salary_period: 'annual',
      salary_source: 'structured',
      apply_url: `${site.base}/careers/robotics-engineer`,
      source_posting_id: `${new URL(site.base).host}#ACME-1`,
    });
    expect(robotics.posted_at?.toISOString()).toBe('2026-10-01T00:00:00.000Z');
    expect(robotics.description_html).toContain('<li>C++ and Rust</li>');
    expect(robotics.description_html).not.toContain('script');
    expect(robotics.field_sources).toMatchObject({ salary: 'published', employment_type: 'published', location: 'published', posted_at: 'published', description: 'published' });

    // TELECOMMUTE is a published remote; the escaped description is read as HTML.
    const support = rows.get('Support Lead (R&D tools)')!;
    expect(support).toMatchObject({ remote: 'remote', remote_inferred: false, employment_type: 'Part-time', served: true });
    expect(support.field_sources).toMatchObject({ remote: 'published', salary: 'absent' });
    expect(support.description_html).toBe('<p>Help our customers.</p>');

    expect(rows.get('Warehouse Associate')).toMatchObject({ city: 'Hamburg', served: true });
    expect(rows.get('Forklift Driver')).toMatchObject({ served: true });

    // validThrough in the past: closed expired_upstream at the latest instant "2020-01-31" can mean.
    const expired = rows.get('Seasonal Picker')!;
    expect(expired).toMatchObject({ status: 'closed', closed_reason: 'expired_upstream' });
    expect(expired.upstream_expired_at?.toISOString()).toBe('2020-02-01T11:59:59.000Z');

    // Published for another employer: that employer's row, withheld by the poster-type rules.
    const partner = rows.get('Field Technician')!;
    expect(partner).toMatchObject({ status: 'live', company_name: 'Globex Corporation', poster_type: 'jobboard', poster_rule_id: 'poster.source_stated', served: false, apply_url: `${site.base}/careers/partner-role` });
  });

  it('serves the rows on /v1/jobs?source_type=career_site (legacy `direct` too), never the withheld one', async () => {
    for (const filter of ['career_site', 'direct']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/v1/jobs?source_type=${filter}&limit=50`, headers: bearer(ctx.key) });
      expect(res.statusCode).toBe(200);
      const jobs = res.json().data as Job[];
      expect(jobs.map((j) => j.title).sort()).toEqual(['Forklift Driver', 'Robotics Software Engineer', 'Support Lead (R&D tools)', 'Warehouse Associate']);
      for (const job of jobs) expect([job.source, job.source_type, job.provider_type]).toEqual(['career_site', 'career_site', 'direct']);
    }
    const other = await ctx.app.inject({ method: 'GET', url: '/v1/jobs?source_type=ats&limit=50', headers: bearer(ctx.key) });
    expect((other.json().data as Job[]).some((j) => j.source === 'career_site')).toBe(false);
  });

  it('recrawls an unchanged site with conditional requests only: every document answers 304, nothing changes', async () => {
    const before = await ledgerSnapshot();
    const from = site.hits.length;
    const report = await crawl();
    expect(outcomes([report])).toEqual(['not_modified']);
    const hits = site.since(from);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.filter((h) => h.status !== 304)).toEqual([]);
    const after = await ledgerSnapshot();
    expect(after.events).toBe(before.events);
    expect(after.jobs.map((j) => [j.id, j.status, j.content_hash])).toEqual(before.jobs.map((j) => [j.id, j.status, j.content_hash]));
  });

  it('fetches nothing but robots.txt and changes nothing when robots.txt disallows the careers page', async () => {
    site.set('/robots.txt', 'User-agent: jobledger\nDisallow: /careers\n\nUser-agent: *\nAllow: /\n', { type: 'text/plain' });
    const before = await ledgerSnapshot();
    const from = site.hits.length;
    const report = await crawl();
    expect(report).toMatchObject({ outcome: 'failed', errorKind: 'blocked' });
    expect(site.since(from).map((h) => h.path)).toEqual(['/robots.txt']);
    expect(await ledgerSnapshot()).toEqual(before);
    site.set('/robots.txt', ROBOTS, { type: 'text/plain' });
  });

  it('changes nothing when the careers page answers 5xx or robots.txt is unreachable', async () => {
    const before = await ledgerSnapshot();
    site.set('/careers', 'upstream down', { status: 503 });
    expect(await crawl()).toMatchObject({ outcome: 'failed', errorKind: 'http_status' });
    publishSite(site);
    site.set('/robots.txt', 'oops', { status: 500 });
    expect(await crawl()).toMatchObject({ outcome: 'failed', errorKind: 'http_status' });
    expect(await ledgerSnapshot()).toEqual(before);
    publishSite(site);
  });

  it('changes nothing when every page lost its JobPostings (markup changed), where there were some', async () => {
    const before = await ledgerSnapshot();
    for (const path of ['/careers/robotics-engineer', '/careers/support-lead', '/careers/warehouse', '/jobs/seasonal-picker', '/careers/partner-role']) {
      site.set(path, html('Loading…', '<script src="/app.js"></script>'));
    }
    const report = await crawl();
    expect(report).toMatchObject({ outcome: 'failed', errorKind: 'malformed' });
    expect(await ledgerSnapshot()).toEqual(before);
    publishSite(site);
  });

  it('closes postings whose page answers 410 or no longer carries them, as expired_upstream', async () => {
    site.set('/careers/warehouse', 'gone', { status: 410 });
    site.set('/careers/robotics-engineer', html('Robotics Software Engineer', '', '<p>This position has been filled.</p>'));
    const startedAt = Date.now();
    const report = await crawl();
    expect(outcomes([report])).toEqual(['fetched']);
    const rows = await rowsByTitle();
    for (const title of ['Warehouse Associate', 'Forklift Driver', 'Robotics Software Engineer']) {
      const row = rows.get(title)!;
      expect(row, title).toMatchObject({ status: 'closed', closed_reason: 'expired_upstream', served: false });
      expect(row.upstream_expired_at!.getTime(), title).toBeGreaterThanOrEqual(startedAt - 1000);
      const events = await ctx.t.db.selectFrom('change_events').select('change').where('job_id', '=', row.id).orderBy('seq').execute();
      expect(events.map((e) => e.change), title).toEqual(['created', 'delisted']);
    }
    expect(rows.get('Support Lead (R&D tools)')).toMatchObject({ status: 'live', served: true });
  });

  it('closes a posting that left the sitemap and the careers page as not_seen after the usual count of good crawls', async () => {
    site.set('/sitemap-jobs.xml', sitemap(['/jobs/seasonal-picker'], site.base), { type: 'application/xml' });
    site.set('/careers', careersPage(['/careers/partner-role']));
    // Its page still answers, so only absence can close it.
    expect(outcomes([await crawl()])).toEqual(['fetched']);
    expect((await rowsByTitle()).get('Support Lead (R&D tools)')).toMatchObject({ status: 'live', missed_crawls: 1 });
    expect(outcomes([await crawl()])).toEqual(['not_modified']);
    expect((await rowsByTitle()).get('Support Lead (R&D tools)')).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
  });
});

describe('career_site page bound and sitemap lastmod', () => {
  const t = useTestDatabase();
  let site: Site;
  let fetcher: GuardedFetcher;

  beforeAll(async () => {
    site = new Site();
    await site.start();
    fetcher = createFetcher(testFetchConfig({ retries: 0 }));
  });
  afterAll(async () => {
    await fetcher?.close();
    await site?.close();
  });

  it('requests at most maxPages posting pages per crawl, keeps what it read, and reads the rest on later crawls', async () => {
    const paths = Array.from({ length: 5 }, (_, i) => `/jobs/${i + 1}`);
    site.set('/robots.txt', '', { status: 404 });
    site.set('/sitemap.xml', sitemap(paths, site.base), { type: 'application/xml' });
    site.set('/jobs', html('Jobs', ''));
    for (const [i, path] of paths.entries()) site.set(path, html(`Job ${i + 1}`, jsonLd(JSON.stringify({ '@type': 'JobPosting', title: `Job ${i + 1}`, identifier: `J${i + 1}` }))));
    const deps: PipelineDeps = {
      db: t.db,
      connectors: createConnectors(loadConfig({}).sources, { maxPages: 2, delayMs: 0 }),
      fetcher,
      fx: loadFxRates(),
      log: pino({ level: 'silent' }),
    };
    const id = await upsertTarget(t.db, { providerId: 'career_site', board: `${site.base}/jobs`, companyName: 'Initech' });
    const titles = async () => (await t.db.selectFrom('jobs').select('title').where('status', '=', 'live').execute()).map((r) => r.title).sort();
    const pagesAsked = (from: number) => site.since(from).filter((h) => /^\/jobs\/\d$/.test(h.path)).length;
    let from = site.hits.length;
    await crawlTargets(deps, await listTargets(t.db, { ids: [id] }));
    expect(pagesAsked(from)).toBe(2);
    expect(await titles()).toEqual(['Job 1', 'Job 2']);
    from = site.hits.length;
    await crawlTargets(deps, await listTargets(t.db, { ids: [id] }));
    expect(pagesAsked(from)).toBe(2);
    expect(await titles()).toEqual(['Job 1', 'Job 2', 'Job 3', 'Job 4']);
    await crawlTargets(deps, await listTargets(t.db, { ids: [id] }));
    expect(await titles()).toEqual(['Job 1', 'Job 2', 'Job 3', 'Job 4', 'Job 5']);

    // A sitemap lastmod older than our last read: the page is not asked at all.
    const withLastmod = (lastmod: (path: string) => string) =>
      `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${site.base}${p}</loc><lastmod>${lastmod(p)}</lastmod></url>`).join('')}</urlset>`;
    site.set('/sitemap.xml', withLastmod(() => '2020-01-01'), { type: 'application/xml' });
    from = site.hits.length;
    await crawlTargets(deps, await listTargets(t.db, { ids: [id] }));
    expect(pagesAsked(from)).toBe(0);
    expect(await titles()).toEqual(['Job 1', 'Job 2', 'Job 3', 'Job 4', 'Job 5']);
    // A newer lastmod: only that page is asked, and its edit arrives.
    site.set('/jobs/5', html('Job 5', jsonLd(JSON.stringify({ '@type': 'JobPosting', title: 'Job 5 (renamed)', identifier: 'J5' }))));
    site.set('/sitemap.xml', withLastmod((p) => (p === '/jobs/5' ? '2099-01-01' : '2020-01-01')), { type: 'application/xml' });
    from = site.hits.length;
    await crawlTargets(deps, await listTargets(t.db, { ids: [id] }));
    expect(site.since(from).filter((h) => /^\/jobs\/\d$/.test(h.path)).map((h) => h.path)).toEqual(['/jobs/5']);
    expect(await titles()).toEqual(['Job 1', 'Job 2', 'Job 3', 'Job 4', 'Job 5 (renamed)']);
  });
});

/**
 * The site's own hosts: a careers page on the bare domain whose postings live on `www.` and `jobs.`
 * hosts of the same registrable domain. The hosts are real names served by one loopback server (by
 * `Host`); the fetcher's resolver names them, and the SSRF guard still checks every address it gives
 * (one host of the site resolves to a private address, which the guard refuses).
 */
describe('career_site follows the hosts of its registrable domain, each under its own robots.txt', () => {
  const t = useTestDatabase();
  let server: http.Server;
  let port = 0;
  let fetcher: GuardedFetcher;
  const docs = new Map<string, { body: string; type?: string; status?: number }>();
  const hits: { host: string; path: string }[] = [];
  const ADDRESSES: Record<string, string> = {
    'acme-robotics.test': '127.0.0.1',
    'www.acme-robotics.test': '127.0.0.1',
    'jobs.acme-robotics.test': '127.0.0.1',
    'acme-robotics-careers.test': '127.0.0.1',
    // Same registrable domain, private address: the guard must refuse it.
    'intranet.acme-robotics.test': '10.1.2.3',
  };
  const at = (host: string, path: string) => `http://${host}:${port}${path}`;
  const posting = (title: string, id: string) => html(title, jsonLd(JSON.stringify({ '@type': 'JobPosting', title, identifier: id, hiringOrganization: { name: 'Acme Robotics' } })));

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      const path = req.url ?? '/';
      hits.push({ host, path });
      const doc = docs.get(`${host}${path}`);
      if (!doc) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not found');
      }
      res.writeHead(doc.status ?? 200, { 'content-type': doc.type ?? 'text/html; charset=utf-8' });
      res.end(doc.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    fetcher = createFetcher(testFetchConfig({ retries: 0 }), undefined, {
      resolve: (hostname, _options, callback) => {
        const address = ADDRESSES[hostname];
        if (address) callback(null, [{ address, family: 4 }]);
        else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      },
    });
  });
  afterAll(async () => {
    await fetcher?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reads posting pages on www. and other hosts of the domain, honours each host\'s robots.txt, reads a page named on two hosts once, and never leaves the domain', async () => {
    const bare = 'acme-robotics.test';
    docs.set(`${bare}/robots.txt`, { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' });
    docs.set(`www.${bare}/robots.txt`, { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' });
    docs.set(`jobs.${bare}/robots.txt`, { body: 'User-agent: *\nDisallow: /careers/night-shift\n', type: 'text/plain' });
    docs.set(
      `${bare}/careers`,
      {
        body: html(
          'Careers at Acme Robotics',
          '',
          [
            at(`www.${bare}`, '/careers/robotics-engineer'),
            at(`jobs.${bare}`, '/careers/warehouse-lead'),
            at(`jobs.${bare}`, '/careers/night-shift'),
            at(bare, '/careers/support-lead'),
            at(`www.${bare}`, '/careers/support-lead'),
            at(`intranet.${bare}`, '/careers/internal-only'),
            at('acme-robotics-careers.test', '/careers/lookalike'),
          ]
            .map((u) => `<a href="${u}">${u}</a>`)
            .join(' '),
        ),
      },
    );
    docs.set(`www.${bare}/careers/robotics-engineer`, { body: posting('Robotics Engineer', 'R-1') });
    docs.set(`jobs.${bare}/careers/warehouse-lead`, { body: posting('Warehouse Lead', 'W-1') });
    docs.set(`jobs.${bare}/careers/night-shift`, { body: posting('Night Shift Operator', 'N-1') });
    docs.set(`${bare}/careers/support-lead`, { body: posting('Support Lead', 'S-1') });
    docs.set(`www.${bare}/careers/support-lead`, { body: posting('Support Lead', 'S-1') });
    docs.set('acme-robotics-careers.test/careers/lookalike', { body: posting('Lookalike Job', 'L-1') });

    const deps: PipelineDeps = {
      db: t.db,
      connectors: createConnectors(loadConfig({}).sources, { maxPages: 20, delayMs: 0 }),
      fetcher,
      fx: loadFxRates(),
      log: pino({ level: 'silent' }),
    };
    const id = await upsertTarget(t.db, { providerId: 'career_site', board: at(bare, '/careers'), companyName: 'Acme Robotics' });
    const [report] = await crawlTargets(deps, await listTargets(t.db, { ids: [id] }));
    expect(outcomes([report!])).toEqual(['fetched']);
    const rows = await t.db.selectFrom('jobs').select(['title', 'status', 'served', 'posting_url']).where('target_id', '=', id).orderBy('title').execute();
    expect(rows).toEqual([
      { title: 'Robotics Engineer', status: 'live', served: true, posting_url: at(`www.${bare}`, '/careers/robotics-engineer') },
      { title: 'Support Lead', status: 'live', served: true, posting_url: at(bare, '/careers/support-lead') },
      { title: 'Warehouse Lead', status: 'live', served: true, posting_url: at(`jobs.${bare}`, '/careers/warehouse-lead') },
    ]);
    const asked = (host: string, path: string) => hits.filter((h) => h.host === host && h.path === path).length;
    // Each host's own robots.txt was read before its pages; its rules were obeyed.
    expect(asked(`www.${bare}`, '/robots.txt')).toBe(1);
    expect(asked(`jobs.${bare}`, '/robots.txt')).toBe(1);
    expect(asked(`jobs.${bare}`, '/careers/night-shift')).toBe(0);
    // One page named on the bare and the www. host: read once, on the careers page's host.
    expect(asked(bare, '/careers/support-lead')).toBe(1);
    expect(asked(`www.${bare}`, '/careers/support-lead')).toBe(0);
    // Another registrable domain is never asked; the private address never reached a socket here.
    expect(hits.filter((h) => h.host === 'acme-robotics-careers.test')).toEqual([]);
    expect(hits.filter((h) => h.host === `intranet.${bare}`)).toEqual([]);
  });
});
