/**
 * The official USAJOBS Search API end to end: a loopback server answers on the API's real path
 * (`/api/search`), read by the production fetcher, the `usajobs_api` connector, enrichment, the quality
 * gate and the ledger.
 *
 * No licensed recording of a Search API answer exists (the shared `usajobs/` data is the announcement
 * files the `usajobs` mirror reads), so the answers are written here in the shape developer.usajobs.gov
 * documents ("API Reference › Search": `SearchResult.SearchResultItems[].MatchedObjectDescriptor`).
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { loadFxRates } from '../src/enrich/fx.ts';
import { createConnectors } from '../src/ingest/connectors/registry.ts';
import { createFetcher, type GuardedFetcher } from '../src/ingest/fetcher.ts';
import { crawlTargets, type PipelineDeps } from '../src/ingest/pipeline.ts';
import { listTargets, upsertTarget } from '../src/store/crawl-targets.ts';
import { AgencyServer } from './helpers/agency-server.ts';
import { agencyPipeline, itChangesNothingOnFailure, useAgencyPipeline } from './helpers/agency-pipeline.ts';
import { testFetchConfig } from './helpers/corpus.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

const KEY = 'test-usajobs-key-0123456789';
const BOARD = 'Keyword=information technology&LocationName=Denver';
const PAGE1 = '/api/search?Keyword=information+technology&LocationName=Denver&ResultsPerPage=500&Page=1';

const item = (id: string, title: string, extra: Record<string, unknown> = {}, details: Record<string, unknown> = {}) => ({
  MatchedObjectId: id,
  MatchedObjectDescriptor: {
    PositionID: `VA-26-${id}`,
    PositionTitle: title,
    PositionURI: `https://www.usajobs.gov:443/job/${id}`,
    ApplyURI: [`https://www.usajobs.gov:443/job/${id}/apply`],
    PositionLocationDisplay: 'Denver, Colorado',
    PositionLocation: [{ LocationName: 'Denver, Colorado', CountryCode: 'United States', CountrySubDivisionCode: 'Colorado', CityName: 'Denver, Colorado', Longitude: -104.99, Latitude: 39.74 }],
    OrganizationName: 'Veterans Health Administration',
    DepartmentName: 'Department of Veterans Affairs',
    JobCategory: [{ Name: 'Information Technology Management', Code: '2210' }],
    JobGrade: [{ Code: 'GS' }],
    PositionSchedule: [{ Name: 'Full-time', Code: '1' }],
    PositionOfferingType: [{ Name: 'Permanent', Code: '15317' }],
    QualificationSummary: 'Specialized experience in IT project management.',
    PositionRemuneration: [{ MinimumRange: '89835.0', MaximumRange: '116788.0', RateIntervalCode: 'PA', Description: 'Per Year' }],
    PositionStartDate: '2026-11-20T00:00:00.0000',
    PositionEndDate: '2099-12-04T23:59:59.9970',
    PublicationStartDate: '2026-11-20T00:00:00.0000',
    ApplicationCloseDate: '2099-12-04T23:59:59.9970',
    UserArea: { Details: { JobSummary: 'Serve veterans as an IT specialist.', MajorDuties: ['Plans IT projects.', 'Manages systems.'], RemoteIndicator: false, TeleworkEligible: true, ...details } },
    ...extra,
  },
  RelevanceRank: 0,
});

const A = item('800000001', 'IT Specialist (PLCYPLN)');
const B = item('800000002', 'Supervisory IT Specialist', {}, { RemoteIndicator: true });
const C = item('800000003', 'Medical Support Assistant', { JobCategory: [{ Name: 'Medical Support Assistance', Code: '0679' }], PositionRemuneration: [{ MinimumRange: '21.5', MaximumRange: '27.9', RateIntervalCode: 'PH' }] });
const result = (items: unknown[]) => ({ json: { LanguageCode: 'EN', SearchParameters: {}, SearchResult: { SearchResultCount: items.length, SearchResultCountAll: items.length, SearchResultItems: items, UserArea: { NumberOfPages: '1' } } } });

describe('USAJOBS Search API over a loopback server on the real path', () => {
  const p = useAgencyPipeline('usajobs_api', BOARD, { JOBLEDGER_USAJOBS_API_KEY: KEY, JOBLEDGER_USAJOBS_API_EMAIL: 'ops@example.org' });
  beforeAll(() => {
    p.server.set(PAGE1, result([A, B, C]));
  });

  it('sends the configured key and address, and maps the structured salary, schedule, location and remote flag', async () => {
    expect(await p.crawl()).toMatchObject({ outcome: 'fetched', counts: { created: 3 } });
    const [hit] = p.server.since(0);
    expect(hit!.url).toBe(PAGE1);
    expect(hit!.headers['authorization-key']).toBe(KEY);
    expect(hit!.headers['from']).toBe('ops@example.org');
    const rows = await p.rows();
    const a = rows.get('800000001')!;
    expect(a).toMatchObject({
      status: 'live',
      served: true,
      company_name: 'Veterans Health Administration',
      country: 'US',
      state: 'CO',
      city: 'Denver',
      employment_type: 'Full-time',
      salary_min: 89835,
      salary_max: 116788,
      salary_currency: 'USD',
      salary_period: 'annual',
      salary_source: 'structured',
      apply_url: 'https://www.usajobs.gov/job/800000001/apply',
      source_type: 'public_agency',
      provider_type: 'government',
    });
    expect(a.posted_at.toISOString()).toBe('2026-11-20T05:00:00.000Z');
    expect(a.field_sources).toMatchObject({ salary: 'published', location: 'published', employment_type: 'published', posted_at: 'published', description: 'published' });
    expect(rows.get('800000002')).toMatchObject({ remote: 'remote', remote_inferred: false });
    expect(rows.get('800000003')).toMatchObject({ salary_period: 'hourly', salary_min: 21.5 });
  });

  it('recrawls an unchanged search with If-None-Match: 304, no row touched', async () => {
    const before = await p.contents();
    const from = p.server.hits.length;
    expect((await p.crawl()).outcome).toBe('not_modified');
    expect(p.server.since(from).map((h) => h.status)).toEqual([304]);
    expect(await p.contents()).toEqual(before);
  });

  itChangesNothingOnFailure(p, 'the search', PAGE1, result([A, B, C]));

  it('closes an announcement whose ApplicationCloseDate has passed as expired_upstream', async () => {
    const closed = item('800000003', 'Medical Support Assistant', { ApplicationCloseDate: '2026-01-15T23:59:59.9970' });
    p.server.set(PAGE1, result([A, B, closed]));
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get('800000003')).toMatchObject({ status: 'closed', closed_reason: 'expired_upstream', served: false });
  });

  it('closes an announcement that left the search as not_seen after the usual count of good crawls', async () => {
    p.server.set(PAGE1, result([A]));
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get('800000002')).toMatchObject({ status: 'live', missed_crawls: 1 });
    expect((await p.crawl()).outcome).toBe('not_modified');
    expect((await p.rows()).get('800000002')).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
  });

  it('fails blocked and changes nothing without a configured key', async () => {
    const keyless = await agencyPipeline('usajobs_api', BOARD);
    try {
      keyless.server.set(PAGE1, result([A]));
      expect(await keyless.crawl()).toMatchObject({ outcome: 'failed', errorKind: 'blocked' });
      expect(keyless.server.hits).toEqual([]);
      expect(await keyless.rowList()).toEqual([]);
    } finally {
      await keyless.close();
    }
  });
});

/**
 * One announcement, two providers: the `usajobs` mirror of announcement files and the Search API both
 * name it by its control number. The Search API supersedes the mirror (connector descriptor
 * `supersedes`), so the announcement is served once, from the API; the mirror's copy is stored
 * withheld (`quality_removed`, rule `source.superseded`), and a mirror row that was served first is
 * withdrawn, with its `withdrawn` event, by the API's crawl.
 */
describe('an announcement read by the usajobs mirror and the Search API is served once', () => {
  let t: TestDatabase;
  let server: AgencyServer;
  let fetcher: GuardedFetcher;
  let deps: PipelineDeps;
  let mirror: string;
  let api: string;
  // The mirror file's shape (shared data README: `control_number, position_title, department, agency,
  // subagency, appointment_type, occupation_series[], hiring_paths[], open_date, close_date, usajobs_url`).
  const announcement = (controlNumber: string, title: string) => ({
    control_number: controlNumber,
    position_title: title,
    department: 'Department of Veterans Affairs',
    agency: 'Veterans Health Administration',
    subagency: null,
    appointment_type: 'Permanent',
    occupation_series: ['2210 - Information Technology Management'],
    hiring_paths: ['public'],
    open_date: '2026-11-20',
    close_date: '2099-12-04',
    usajobs_url: `https://www.usajobs.gov/job/${controlNumber}`,
  });
  const crawl = async (id: string) => (await crawlTargets(deps, await listTargets(t.db, { ids: [id] }), { concurrency: 1 }))[0]!;
  const rows = () => t.db.selectFrom('jobs').select(['provider_id', 'source_posting_id', 'status', 'served', 'withheld_kind', 'quality_rule_id']).orderBy('provider_id').orderBy('source_posting_id').execute();
  const events = () => t.db.selectFrom('change_events').select(['job_id', 'change']).orderBy('seq').execute();

  beforeAll(async () => {
    t = await createTestDatabase();
    server = await new AgencyServer().start();
    const config = loadConfig({ JOBLEDGER_USAJOBS_API_KEY: KEY, JOBLEDGER_USAJOBS_API_EMAIL: 'ops@example.org' });
    fetcher = createFetcher(testFetchConfig({ retries: 0 }));
    deps = {
      db: t.db,
      connectors: createConnectors({ ...config.sources, usajobs: server.base, usajobs_api: server.base }, config.careerSite, config.agencyKeys),
      fetcher,
      fx: loadFxRates(),
      log: pino({ level: 'silent' }),
    };
    mirror = await upsertTarget(t.db, { providerId: 'usajobs', board: 'jobs_veterans_affairs' });
    api = await upsertTarget(t.db, { providerId: 'usajobs_api', board: BOARD });
  });
  afterAll(async () => {
    await fetcher?.close();
    await server?.close();
    await t?.drop();
  });

  it('withdraws the mirror\'s served copy when the API reads the announcement, and stores later copies withheld', async () => {
    server.set('/jobs_veterans_affairs.json', { json: [announcement('800000001', 'IT Specialist (PLCYPLN)'), announcement('800000009', 'Nurse (Mirror only)')] });
    expect((await crawl(mirror)).outcome).toBe('fetched');
    expect((await rows()).filter((r) => r.served).map((r) => [r.provider_id, r.source_posting_id])).toEqual([
      ['usajobs', '800000001'],
      ['usajobs', '800000009'],
    ]);
    const mirrorCopy = (await t.db.selectFrom('jobs').select('id').where('provider_id', '=', 'usajobs').where('source_posting_id', '=', '800000001').executeTakeFirstOrThrow()).id;

    // The Search API reads 800000001 (and 800000002): its row is served, the mirror's copy withdrawn.
    server.set(PAGE1, result([A, B]));
    expect((await crawl(api)).outcome).toBe('fetched');
    expect(await rows()).toEqual([
      { provider_id: 'usajobs', source_posting_id: '800000001', status: 'live', served: false, withheld_kind: 'quality_removed', quality_rule_id: 'source.superseded' },
      { provider_id: 'usajobs', source_posting_id: '800000009', status: 'live', served: true, withheld_kind: null, quality_rule_id: null },
      { provider_id: 'usajobs_api', source_posting_id: '800000001', status: 'live', served: true, withheld_kind: null, quality_rule_id: null },
      { provider_id: 'usajobs_api', source_posting_id: '800000002', status: 'live', served: true, withheld_kind: null, quality_rule_id: null },
    ]);
    expect((await events()).filter((e) => e.job_id === mirrorCopy).map((e) => e.change)).toEqual(['created', 'withdrawn']);

    // The mirror's next full read keeps its copy withheld, and a new copy (800000002) enters withheld, without an event.
    const eventsBefore = (await events()).length;
    server.set('/jobs_veterans_affairs.json', { json: [announcement('800000001', 'IT Specialist (PLCYPLN)'), announcement('800000009', 'Nurse (Mirror only)'), announcement('800000002', 'Supervisory IT Specialist')] });
    expect((await crawl(mirror)).outcome).toBe('fetched');
    const mirrorRows = (await rows()).filter((r) => r.provider_id === 'usajobs');
    expect(mirrorRows.map((r) => [r.source_posting_id, r.served, r.quality_rule_id])).toEqual([
      ['800000001', false, 'source.superseded'],
      ['800000002', false, 'source.superseded'],
      ['800000009', true, null],
    ]);
    expect((await events()).length).toBe(eventsBefore);
    // One served row per announcement across both providers.
    const served = (await rows()).filter((r) => r.served).map((r) => r.source_posting_id);
    expect(new Set(served).size).toBe(served.length);
  });
});
