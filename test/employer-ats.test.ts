/**
 * The five employer ATS connectors of issue 18 (SmartRecruiters, Recruitee, Workable with both its
 * widget and its v3 careers-page API, Personio, Workday) through the whole production path: the
 * loopback replay server answers on each real API's paths (the recorded Recruitee, Workable widget and
 * Workday answers; the hand-written SmartRecruiters, Personio and Workable v3 boards), the guarded
 * fetcher and the connector read them, enrichment, the quality gate and the ledger write them. Per
 * connector, in order: a full crawl; a recrawl with no change (a conditional request answered 304 where
 * the source supports one: Workable v3 reads its POST list again and validates each job's details;
 * Workday's POST search is read again) that touches no row; each failure form (500, timeout, HTML error page, empty answer, malformed payload,
 * and a failed details document for the sources that have them) changing nothing; a posting that
 * disappears closing `not_seen` after the usual count of good crawls (2 here) and coming back; a
 * closure by the source's own signal (`expired_upstream`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../src/ingest/bundled-feeds.ts';
import { createFetcher } from '../src/ingest/fetcher.ts';
import type { ReplayOverride, ReplayServer } from '../src/ingest/replay-server.ts';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { outcomes, replayPipeline, testFetchConfig, type ReplayPipeline } from './helpers/corpus.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

type Json = Record<string, unknown>;
const fixture = (...parts: string[]): string => readFileSync(path.join(FIXTURES_DIR, ...parts), 'utf8');
const json = (...parts: string[]): Json => JSON.parse(fixture(...parts)) as Json;
const yesterday = (): string => new Date(Date.now() - 86_400_000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/** How one connector's board is driven through the scenarios. */
interface Case {
  provider: string;
  board: string;
  /** Replay path (as sent, without query) of the board's list answer. */
  listPath: string;
  /** Rows the full crawl serves. */
  live: number;
  /** Postings whose source states a structured salary. */
  salaried: string[];
  /** A posting that disappears and comes back, and postings the source closes itself. */
  vanishing: string;
  /** Overrides that answer the list without `id` (the source's shape kept). */
  without(id: string): ReplayOverride;
  /** Make the source close postings by its own signal; returns their ids. */
  closeBySource(replay: ReplayServer): string[];
  /** The recrawl asks conditionally and gets 304. */
  conditional: boolean;
  /**
   * The path whose recrawl request carries the validator, when it is not the list's (Workable v3: the
   * list is a POST, read again; a job's details are asked with If-None-Match).
   */
  validatedPath?: string;
  /**
   * What a second crawl of the same override answers: `fetched` for sources whose overridden answer
   * carries no validator; `not_modified` where the connector itself recognises an unchanged list and
   * validates the rest (Workable v3).
   */
  repeatOutcome?: 'fetched' | 'not_modified';
  /** A details document whose failure fails the crawl (multi-document sources). */
  detailsPath?: string;
  /** A well-formed answer of the wrong shape. */
  malformed: ReplayOverride;
  /** Overrides the case needs from the start (Workday: a second posting with details). */
  setup?(replay: ReplayServer): void;
}

const recruitee = json('recruitee', 'aikidosecurity.json') as { offers: Json[] };
const workable = json('workable', 'vasion.json') as { name: string; jobs: Json[] };
const V3_TOKEN = 'WzE3NjM0MjQwMDAwMDAsMzY5ODMwMl0';
const v3Jobs = [...(json('workable', 'v3', 'halcyon-bio.json') as { results: Json[] }).results, ...(json('workable', 'v3', `halcyon-bio.page-${V3_TOKEN}.json`) as { results: Json[] }).results];
const v3Details = (shortcode: string): Json => json('workable', 'v3', 'halcyon-bio', `${shortcode}.json`);
const personioXml = fixture('personio', 'harbourline.xml');
const srList = json('smartrecruiters', 'LumenGrid.json') as { content: Json[] } & Json;
const WD = 'gdit.wd5.myworkdayjobs.com/gdit/External_Career_Site';
const wdBase = '/workday/gdit.wd5.myworkdayjobs.com/wday/cxs/gdit/External_Career_Site';
const wdList = json('workday', WD, 'jobs.json') as { jobPostings: Json[] } & Json;
const wdDetails = json('workday', WD, 'job', 'USA-DC-Washington', 'Data-Engineer_RQ216675.json') as { jobPostingInfo: Json } & Json;
// A second posting of the same tenant, made from the recorded one, so a board keeps a posting when
// the other disappears (an empty board is never evidence). Only the first recorded posting has
// recorded details; the three others answer 404 and are read as gone.
const wdSecond = { ...wdList.jobPostings[0], title: 'Data Engineer II', externalPath: '/job/USA-DC-Washington/Data-Engineer-II_RQ299999', bulletFields: ['RQ299999'] };
const wdSecondDetails = {
  ...wdDetails,
  jobPostingInfo: { ...wdDetails.jobPostingInfo, title: 'Data Engineer II', jobPostingId: 'Data-Engineer-II_RQ299999', jobReqId: 'RQ299999', externalUrl: 'https://gdit.wd5.myworkdayjobs.com/External_Career_Site/job/USA-DC-Washington/Data-Engineer-II_RQ299999' },
};
const wdBoard = (postings: Json[]): ReplayOverride => ({ json: { ...wdList, jobPostings: postings } });
const xml = (body: string): ReplayOverride => ({ status: 200, body, headers: { 'content-type': 'application/xml; charset=utf-8' } });
const withoutPosition = (id: string): string => personioXml.replace(new RegExp(`<position>\\s*<id>${id}</id>[\\s\\S]*?</position>`), '');

const CASES: Case[] = [
  {
    provider: 'smartrecruiters',
    board: 'LumenGrid',
    listPath: '/v1/companies/LumenGrid/postings',
    live: 4,
    salaried: [],
    vanishing: '744000012345002',
    without: (id) => {
      const content = srList.content.filter((p) => p['id'] !== id);
      return { json: { ...srList, totalFound: content.length, content } };
    },
    closeBySource: (replay) => {
      // The list changed (so it is read in full and each posting's details asked for) ...
      replay.override('/v1/companies/LumenGrid/postings', { json: { ...srList, content: srList.content.map((p) => ({ ...p, refNumber: `${String(p['refNumber'])}-1` })) } });
      // ... and two of them are unpublished by the time their details are asked for.
      replay.override('/v1/companies/LumenGrid/postings/744000012345003', { status: 404, body: '{"message":"Not found"}', headers: { 'content-type': 'application/json' } });
      replay.override('/v1/companies/LumenGrid/postings/744000012345004', { json: { ...json('smartrecruiters', 'LumenGrid', '744000012345004.json'), active: false } });
      return ['744000012345003', '744000012345004'];
    },
    conditional: true,
    detailsPath: '/v1/companies/LumenGrid/postings/744000012345001',
    malformed: { json: { offset: 0, limit: 100, content: {} } },
  },
  {
    provider: 'recruitee',
    board: 'aikidosecurity',
    listPath: '/recruitee/aikidosecurity/api/offers/',
    live: 3,
    salaried: ['2705729'],
    vanishing: String(recruitee.offers[1]!['id']),
    without: (id) => ({ json: { offers: recruitee.offers.filter((o) => String(o['id']) !== id) } }),
    closeBySource: (replay) => {
      const [a, b, c] = recruitee.offers as [Json, Json, Json];
      replay.override('/recruitee/aikidosecurity/api/offers/', { json: { offers: [a, { ...b, status: 'closed' }, { ...c, close_at: yesterday() }] } });
      return [String(b['id']), String(c['id'])];
    },
    conditional: true,
    malformed: { json: { offers: { count: 3 } } },
  },
  {
    provider: 'workable',
    board: 'vasion',
    listPath: '/api/v1/widget/accounts/vasion',
    live: 2,
    salaried: [],
    vanishing: String(workable.jobs[1]!['shortcode']),
    without: (id) => ({ json: { ...workable, jobs: workable.jobs.filter((j) => j['shortcode'] !== id) } }),
    closeBySource: (replay) => {
      // The job leaves the widget and its own page answers 404: Workable itself says it is gone.
      const [a, b] = workable.jobs as [Json, Json];
      replay.override('/api/v1/widget/accounts/vasion', { json: { ...workable, jobs: [b] } });
      replay.override(replay.pagePath(String(a['url'])), { status: 404, body: 'Not found' });
      return [String(a['shortcode'])];
    },
    conditional: true,
    malformed: { json: { name: 'Vasion', jobs: 'none' } },
  },
  {
    provider: 'workable',
    board: 'v3:halcyon-bio',
    listPath: '/api/v3/accounts/halcyon-bio/jobs',
    // Five listed, one of them internal (not a public vacancy).
    live: 4,
    salaried: [],
    vanishing: '8D21E4A6C5',
    // The override answers every page of the list; one page without nextPage holds the whole list.
    without: (id) => ({ json: { total: v3Jobs.length - 1, results: v3Jobs.filter((j) => j['shortcode'] !== id) } }),
    closeBySource: (replay) => {
      // Workable unpublished one job (its details answer 404) and closed another (its state says so).
      replay.override('/api/v2/accounts/halcyon-bio/jobs/C07B5E913A', { status: 404, body: '{"error":"Not found"}', headers: { 'content-type': 'application/json' } });
      replay.override('/api/v2/accounts/halcyon-bio/jobs/5E6D2F80B4', { json: { ...v3Details('5E6D2F80B4'), state: 'closed' } });
      return ['C07B5E913A', '5E6D2F80B4'];
    },
    conditional: true,
    validatedPath: '/api/v2/accounts/halcyon-bio/jobs/3F9A1C0B27',
    repeatOutcome: 'not_modified',
    detailsPath: '/api/v2/accounts/halcyon-bio/jobs/3F9A1C0B27',
    malformed: { json: { total: 5, results: 'none' } },
  },
  {
    provider: 'personio',
    board: 'harbourline',
    listPath: '/personio/harbourline/xml',
    live: 4,
    salaried: ['1873401', '1873402', '1873403'],
    vanishing: '1873402',
    without: (id) => xml(withoutPosition(id)),
    closeBySource: (replay) => {
      replay.override('/personio/harbourline/xml', xml(withoutPosition('1873403')));
      replay.override(replay.pagePath('https://harbourline.jobs.personio.de/job/1873403'), { status: 410, body: 'Gone' });
      return ['1873403'];
    },
    conditional: true,
    malformed: xml(personioXml.slice(0, Math.floor(personioXml.length / 2))),
  },
  {
    provider: 'workday',
    board: WD,
    listPath: `${wdBase}/jobs`,
    live: 2,
    salaried: [],
    vanishing: 'Data-Engineer-II_RQ299999',
    setup: (replay) => {
      replay.override(`${wdBase}/jobs`, wdBoard([wdList.jobPostings[0]!, wdSecond]));
      replay.override(`${wdBase}/job/USA-DC-Washington/Data-Engineer-II_RQ299999`, { json: wdSecondDetails });
    },
    without: (id) => wdBoard([wdList.jobPostings[0]!, wdSecond].filter((p) => !String(p['externalPath']).endsWith(`/${id}`))),
    closeBySource: (replay) => {
      replay.override(`${wdBase}/jobs`, wdBoard([wdList.jobPostings[0]!, wdSecond]));
      replay.override(`${wdBase}/job/USA-DC-Washington/Data-Engineer_RQ216675`, { status: 404, body: '{"errorCode":"HTTP_404"}', headers: { 'content-type': 'application/json' } });
      return ['Data-Engineer_RQ216675'];
    },
    conditional: false,
    detailsPath: `${wdBase}/job/USA-DC-Washington/Data-Engineer_RQ216675`,
    malformed: { json: { total: 2, jobPostings: null } },
  },
];

describe('employer ATS connectors through the ledger', () => {
  let t: TestDatabase;
  let pipeline: ReplayPipeline;

  beforeAll(async () => {
    t = await createTestDatabase();
    pipeline = await replayPipeline(t.db, { retries: 0 }, { absence: { crawls: 2, minSeconds: 0 }, probe: true });
  });
  afterAll(async () => {
    await pipeline?.close();
    await t?.drop();
  });

  describe.each(CASES)('$provider:$board', (c) => {
    let target: CrawlTargetRow;
    const crawl = async () => {
      const [report] = await pipeline.crawl([target]);
      return report!;
    };
    const rows = () =>
      t.db
        .selectFrom('jobs')
        .select(['id', 'source_posting_id', 'status', 'closed_reason', 'content_hash', 'updated_at', 'last_verified_at', 'withheld_kind', 'missed_crawls', 'served', 'field_sources'])
        .where('target_id', '=', target.id)
        .orderBy('source_posting_id')
        .execute();
    const events = async () => (await t.db.selectFrom('change_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n;
    const row = async (id: string) => (await rows()).find((r) => r.source_posting_id === id)!;

    beforeAll(() => {
      target = pipeline.targets.find((x) => x.provider_id === c.provider && x.board === c.board)!;
      expect(target, `${c.provider}:${c.board} is seeded`).toBeDefined();
      c.setup?.(pipeline.replay);
    });

    it('reads the whole board: every posting live and served, with truthful field sources', async () => {
      const report = await crawl();
      expect(outcomes([report])).toEqual(['fetched']);
      const all = await rows();
      expect(all.map((r) => [r.status, r.served, r.withheld_kind])).toEqual(all.map(() => ['live', true, null]));
      expect(all.length).toBe(c.live);
      for (const r of all) {
        const fs = r.field_sources as Record<string, string>;
        expect(fs['description'], r.source_posting_id).toBe('published');
        expect(fs['location'], r.source_posting_id).toBe('published');
        expect(fs['posted_at'], r.source_posting_id).toBe('published');
        // The class of the source is the service's reading of the provider, never the payload's word.
        expect(fs['source_type']).toBe('inferred');
        // Salary: published where the source states it structured; otherwise at most read from the text.
        if (c.salaried.includes(r.source_posting_id)) expect(fs['salary'], r.source_posting_id).toBe('published');
        else expect(['absent', 'inferred'], r.source_posting_id).toContain(fs['salary']);
      }
      const providers = await t.db.selectFrom('providers').selectAll().where('id', '=', c.provider).executeTakeFirstOrThrow();
      expect(providers).toMatchObject({ source_type: 'ats' });
    });

    it(`recrawls an unchanged board without touching a row (${c.conditional ? 'conditional request, 304' : 'the POST search read again'})`, async () => {
      const before = await rows();
      const eventsBefore = await events();
      pipeline.replay.requests.length = 0;
      const report = await crawl();
      const listRequests = pipeline.replay.requests.filter((r) => r.path.split('?')[0] === c.listPath);
      if (c.conditional) {
        expect(report.outcome).toBe('not_modified');
        const validated = c.validatedPath ? pipeline.replay.requests.filter((r) => r.path.split('?')[0] === c.validatedPath) : listRequests;
        expect(validated[0]?.headers['if-none-match']).toMatch(/^"/);
        if (c.validatedPath) expect(listRequests.map((r) => r.method)).toContain('POST');
      } else {
        expect(report.outcome).toBe('fetched');
        expect(listRequests[0]?.method).toBe('POST');
      }
      const strip = (rs: typeof before) => rs.map(({ last_verified_at: _, ...rest }) => rest);
      expect(strip(await rows())).toEqual(strip(before));
      expect(await events()).toBe(eventsBefore);
    });

    describe('a failed crawl changes nothing', () => {
      const forms: [string, () => void][] = [
        ['500', () => pipeline.replay.override(c.listPath, { status: 500, body: 'Internal Server Error', headers: { 'content-type': 'text/plain' } })],
        ['an HTML error page (200)', () => pipeline.replay.override(c.listPath, { status: 200, body: '<!doctype html><html><body><h1>We are down for maintenance</h1></body></html>', headers: { 'content-type': 'text/html' } })],
        ['an empty answer', () => pipeline.replay.override(c.listPath, { status: 200, body: '', headers: { 'content-type': 'application/json' } })],
        ['a malformed payload', () => pipeline.replay.override(c.listPath, c.malformed)],
        ...(c.detailsPath
          ? ([
              // The list is answered in full (no validators), so the details are asked for.
              ['a details answer of 500', () => [pipeline.replay.override(c.listPath, c.without('none')), pipeline.replay.override(c.detailsPath!, { status: 500, body: 'oops' })]],
              [
                'a details answer that is HTML',
                () => [pipeline.replay.override(c.listPath, c.without('none')), pipeline.replay.override(c.detailsPath!, { status: 200, body: '<html>error</html>', headers: { 'content-type': 'text/html' } })],
              ],
            ] as [string, () => void][])
          : []),
      ];

      it.each(forms)('%s', async (_name, provoke) => {
        const before = await rows();
        const eventsBefore = await events();
        provoke();
        try {
          const report = await crawl();
          expect(report.outcome).toBe('failed');
        } finally {
          pipeline.replay.override(c.listPath, null);
          if (c.detailsPath) pipeline.replay.override(c.detailsPath, null);
          c.setup?.(pipeline.replay);
        }
        expect(await rows()).toEqual(before);
        expect(await events()).toBe(eventsBefore);
      });

      it('a timeout', async () => {
        const before = await rows();
        pipeline.replay.override(c.listPath, { status: 200, body: '{}', delayMs: 2_000 });
        const patient = pipeline.deps.fetcher;
        const impatient = createFetcher(testFetchConfig({ timeoutMs: 300, retries: 0 }));
        pipeline.deps.fetcher = impatient;
        try {
          const report = await crawl();
          expect(outcomes([report])[0]).toMatch(/^failed \(timeout/);
        } finally {
          pipeline.deps.fetcher = patient;
          await impatient.close();
          pipeline.replay.override(c.listPath, null);
          c.setup?.(pipeline.replay);
        }
        expect(await rows()).toEqual(before);
      });
    });

    it('closes a posting that disappears as not_seen after two good crawls, and reopens it when it returns', async () => {
      pipeline.replay.override(c.listPath, c.without(c.vanishing));
      expect((await crawl()).outcome).toBe('fetched');
      expect(await row(c.vanishing)).toMatchObject({ status: 'live', missed_crawls: 1, served: true });
      expect((await crawl()).outcome).toBe(c.repeatOutcome ?? 'fetched');
      expect(await row(c.vanishing)).toMatchObject({ status: 'closed', closed_reason: 'not_seen', served: false });
      pipeline.replay.override(c.listPath, null);
      c.setup?.(pipeline.replay);
      expect((await crawl()).outcome).toBe('fetched');
      expect(await row(c.vanishing)).toMatchObject({ status: 'live', missed_crawls: 0, served: true });
    });

    it("closes postings by the source's own signal as expired_upstream", async () => {
      const closed = c.closeBySource(pipeline.replay);
      expect((await crawl()).outcome).toBe('fetched');
      for (const id of closed) expect(await row(id), id).toMatchObject({ status: 'closed', closed_reason: 'expired_upstream', served: false });
      const stillLive = (await rows()).filter((r) => !closed.includes(r.source_posting_id));
      expect(stillLive.length).toBeGreaterThan(0);
      for (const r of stillLive) expect(r.status).toBe('live');
    });
  });
});
