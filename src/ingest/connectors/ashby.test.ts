/**
 * The Ashby connector on the recorded boards (fixtures/ashby, recorded 2025-10-28 from Ashby's public
 * posting API), fetched through the real fetcher from the loopback replay server.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { CrawlError } from '../connector.ts';
import type { CrawlOutcome, CrawlTarget } from '../connector.ts';
import type { SourcePosting } from '../../domain/posting.ts';
import { createFetcher } from '../fetcher.ts';
import { rejectionOf } from '../../../test/helpers/rejection.ts';
import { loopbackFetchConfig, readFixture, readManifest, startLoopback, targetOf, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { ashbySalary, createAshbyConnector } from './ashby.ts';

const replay = useConnectorReplay('ashby', createAshbyConnector, { timeoutMs: 2_000 });
const { target, postingsOf } = replay;

interface RawJob {
  id: string;
  descriptionHtml: string;
  descriptionPlain: string;
  isListed?: boolean;
  [key: string]: unknown;
}

function rawJob(board: string, id: string): RawJob {
  const job = (readFixture('ashby', board) as { jobs: RawJob[] }).jobs.find((j) => j.id === id);
  if (!job) throw new Error(`fixture ${board} has no job ${id}`);
  return job;
}

async function find(board: string, id: string): Promise<SourcePosting> {
  const posting = (await postingsOf(board)).find((p) => p.sourcePostingId === id);
  if (!posting) throw new Error(`no posting ${id} on ${board}`);
  return posting;
}

const crawlError = (promise: Promise<CrawlOutcome>) => rejectionOf(promise, CrawlError);

beforeEach(() => {
  replay.loop.replay.requests.length = 0;
});

describe('Ashby connector on the recorded boards', () => {
  it('reads every listed posting of every fixture board, without skips', async () => {
    const boards = readManifest().filter((e) => e.provider === 'ashby');
    expect(boards.length).toBeGreaterThanOrEqual(50);
    let total = 0;
    for (const entry of boards) {
      const outcome = await replay.connector.crawl(targetOf(entry), replay.loop.fetcher);
      expect(outcome.kind).toBe('fetched');
      if (outcome.kind !== 'fetched') continue;
      const jobs = (readFixture('ashby', entry.board) as { jobs: RawJob[] }).jobs;
      expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual(jobs.filter((j) => j.isListed !== false).map((j) => j.id));
      expect(outcome.skipped).toBe(0);
      expect(outcome.etag).toMatch(/^"/);
      expect(outcome.lastModified).toMatch(/GMT$/);
      for (const p of outcome.postings) expect(p.company).toEqual({ name: entry.company, ...(entry.domain ? { domain: entry.domain } : {}) });
      total += outcome.postings.length;
    }
    expect(total).toBeGreaterThanOrEqual(2_400);
  });

  it('maps DeepL 10c21b35 (London + three secondary locations, isRemote false) field by field', async () => {
    const raw = rawJob('DeepL', '10c21b35-9eb7-42a1-87b2-8079762a2fd1');
    const posting = await postingsOfOne('DeepL', '10c21b35-9eb7-42a1-87b2-8079762a2fd1', { companyName: 'DeepL', companyDomain: 'deepl.com' });
    expect(posting).toEqual({
      sourcePostingId: '10c21b35-9eb7-42a1-87b2-8079762a2fd1',
      title: 'Senior Product Manager API',
      company: { name: 'DeepL', domain: 'deepl.com' },
      location: 'London',
      locations: [
        { text: 'London', country: 'United Kingdom', region: 'London', city: 'London' },
        { text: 'Berlin', country: 'Germany', region: 'Berlin', city: 'Berlin' },
        { text: 'Amsterdam', country: 'Netherlands', region: 'North Holland', city: 'Amsterdam' },
        { text: 'Munich', country: 'Germany', region: 'Bavaria', city: 'Munich' },
      ],
      remoteFlag: 'not_remote',
      employmentType: 'FullTime',
      postedAt: '2025-08-29T13:43:12.621Z',
      descriptionHtml: raw.descriptionHtml,
      descriptionText: raw.descriptionPlain,
      applyUrl: 'https://jobs.ashbyhq.com/DeepL/10c21b35-9eb7-42a1-87b2-8079762a2fd1/application',
      postingUrl: 'https://jobs.ashbyhq.com/DeepL/10c21b35-9eb7-42a1-87b2-8079762a2fd1',
      hints: { department: 'Product', team: 'API & Client Libraries' },
    });
  });

  it('maps an hourly salary: Synergy Pet Group 5215ce77 (USD 24-27 per hour, remote), board with spaces', async () => {
    const posting = await find('Synergy Pet Group', '5215ce77-2c51-4dab-91cd-d770ec93d60c');
    expect(posting.salary).toEqual({ min: 24, max: 27, currency: 'USD', period: 'hourly' });
    expect(posting.remoteFlag).toBe('remote_or_hybrid');
    expect(posting.location).toBe('United States | Remote');
    expect(posting.locations).toEqual([{ text: 'United States | Remote', country: 'United States' }]);
    expect(posting.company).toEqual({ name: 'Synergy Pet Group' });
    expect(replay.loop.replay.requests[0]?.path).toBe('/posting-api/job-board/Synergy%20Pet%20Group?includeCompensation=true');
  });

  it('maps a monthly salary: bjakcareer b1212e14 (MYR 3,500-6,000 per month)', async () => {
    const posting = await find('bjakcareer', 'b1212e14-e0f6-4151-9cc9-0d286a164d41');
    expect(posting.salary).toEqual({ min: 3500, max: 6000, currency: 'MYR', period: 'monthly' });
    expect(posting.locations).toEqual([{ text: 'Malaysia', country: 'Malaysia', region: 'Selangor', city: 'Bandar Utama, Petaling Jaya' }]);
    expect(posting.remoteFlag).toBe('not_remote');
    expect(posting.postedAt).toBe('2025-10-15T06:08:46.281Z');
  });

  it('maps a weekly salary: decagon aa9c9d2a (USD 2,400 per week, intern)', async () => {
    const posting = await find('decagon', 'aa9c9d2a-aba9-429e-bf91-8303247fbcd6');
    expect(posting.salary).toEqual({ min: 2400, max: 2400, currency: 'USD', period: 'weekly' });
    expect(posting.employmentType).toBe('Intern');
  });

  it('maps isRemote true with secondary locations that have a country only: kraken.com 30006926', async () => {
    const posting = await find('kraken.com', '30006926-db56-430d-bee5-86dca5d68539');
    expect(posting.remoteFlag).toBe('remote_or_hybrid');
    expect(posting.locations).toEqual([
      { text: 'United Kingdom', country: 'United Kingdom', region: 'United Kingdom', city: 'London' },
      { text: 'Europe', country: 'European Union' },
      { text: 'Canada', country: 'Canada' },
    ]);
    expect(posting.salary).toBeUndefined();
  });

  it('leaves remoteFlag and blank address parts absent: 1password 8481df25 (isRemote null, addressCountry "")', async () => {
    const posting = await find('1password', '8481df25-44f3-4a9b-b3ce-ec244276db31');
    expect(posting).not.toHaveProperty('remoteFlag');
    expect(posting.locations).toEqual([{ text: 'Remote (United States | Canada)' }]);
    expect(posting).not.toHaveProperty('salary');
  });

  it('copes with address null: bitvavo 9bd37110', async () => {
    const posting = await find('bitvavo', '9bd37110-70cb-4102-914b-69ac5156fa60');
    expect(posting.locations).toEqual([{ text: 'Headquarters' }]);
    expect(posting).not.toHaveProperty('remoteFlag');
  });

  it('names the company by the board token when the target has no display name', async () => {
    const [first] = await postingsOf('voodoo');
    expect(first?.company).toEqual({ name: 'voodoo' });
  });

  it('treats an empty board as fetched with no postings', async () => {
    const outcome = await replay.connector.crawl(target('superhuman'), replay.loop.fetcher);
    expect(outcome).toMatchObject({ kind: 'fetched', postings: [], skipped: 0 });
  });

  it('counts postings without id or title as skipped, leaves unlisted ones out and keeps one copy of a duplicate id', async () => {
    const [a, b] = (readFixture('ashby', 'Synergy Pet Group') as { jobs: RawJob[] }).jobs;
    replay.loop.replay.override('/posting-api/job-board/mixed', {
      json: { jobs: [a, { ...b, id: '' }, { ...b, title: null }, { ...b, isListed: false }, a, 'junk'], apiVersion: '1' },
    });
    const outcome = await replay.connector.crawl(target('mixed'), replay.loop.fetcher);
    expect(outcome).toMatchObject({ kind: 'fetched', skipped: 3 });
    if (outcome.kind === 'fetched') expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual([a!.id]);
  });
});

describe('conditional requests', () => {
  it('sends the validators and returns not_modified on 304', async () => {
    const first = await replay.connector.crawl(target('DeepL'), replay.loop.fetcher);
    if (first.kind !== 'fetched') throw new Error('expected fetched');
    expect(await replay.connector.crawl(target('DeepL', { etag: first.etag }), replay.loop.fetcher)).toEqual({ kind: 'not_modified' });
    expect(replay.loop.replay.requests[1]?.headers['if-none-match']).toBe(first.etag);
    expect(await replay.connector.crawl(target('DeepL', { lastModified: first.lastModified }), replay.loop.fetcher)).toEqual({ kind: 'not_modified' });
    expect(replay.loop.replay.requests[2]?.headers['if-modified-since']).toBe(first.lastModified);
    // A stale validator gets the full board.
    expect((await replay.connector.crawl(target('DeepL', { etag: '"stale"' }), replay.loop.fetcher)).kind).toBe('fetched');
  });
});

describe('unusable answers', () => {
  const path = '/posting-api/job-board/broken';
  const broken = target('broken');

  it('500 → http_status', async () => {
    replay.loop.replay.override(path, { status: 500, body: 'Internal Server Error' });
    const err = await crawlError(replay.connector.crawl(broken, replay.loop.fetcher));
    expect([err.kind, err.status]).toEqual(['http_status', 500]);
  });

  it('unknown board (404) → http_status', async () => {
    const err = await crawlError(replay.connector.crawl(target('no-such-board'), replay.loop.fetcher));
    expect([err.kind, err.status]).toEqual(['http_status', 404]);
  });

  it('an HTML error page with status 200 → malformed', async () => {
    replay.loop.replay.override(path, { status: 200, body: '<!doctype html><html><body>Service unavailable</body></html>', headers: { 'content-type': 'text/html' } });
    expect((await crawlError(replay.connector.crawl(broken, replay.loop.fetcher))).kind).toBe('malformed');
  });

  it('truncated JSON → malformed', async () => {
    const bytes = JSON.stringify(readFixture('ashby', 'DeepL'));
    replay.loop.replay.override(path, { status: 200, body: bytes.slice(0, Math.floor(bytes.length / 2)), headers: { 'content-type': 'application/json' } });
    expect((await crawlError(replay.connector.crawl(broken, replay.loop.fetcher))).kind).toBe('malformed');
  });

  it.each([[{ jobs: {} }], [[]], [{ data: [] }], [null], ['jobs']])('wrong shape %j → malformed', async (json) => {
    replay.loop.replay.override(path, { json });
    expect((await crawlError(replay.connector.crawl(broken, replay.loop.fetcher))).kind).toBe('malformed');
  });

  it('slow answer → timeout; cut connection → network; oversized → too_large', async () => {
    replay.loop.replay.override(path, { status: 200, body: '{"jobs":[]}', delayMs: 3_000 });
    const impatient = createFetcher(loopbackFetchConfig({ timeoutMs: 250 }));
    try {
      expect((await crawlError(replay.connector.crawl(broken, impatient))).kind).toBe('timeout');
    } finally {
      await impatient.close();
    }
    replay.loop.replay.override(path, { destroySocket: true });
    expect((await crawlError(replay.connector.crawl(broken, replay.loop.fetcher))).kind).toBe('network');
    const small = await startLoopback({ maxBytes: 10_000 });
    try {
      const err = await crawlError(createAshbyConnector(small.replay.baseUrls.ashby).crawl(target('DeepL'), small.fetcher));
      expect(err.kind).toBe('too_large');
    } finally {
      await small.close();
    }
  });
});

describe('ashbySalary', () => {
  it('keeps a salary whose interval has no yearly equivalent with period null (silver.json "1 TIME" component)', () => {
    // The one recorded "1 TIME" salary component: board "silver", posting 72971322 "Technical Interviewer -
    // Pay-per-Interview" (not bundled: silver.dev recruits for other companies).
    const compensation = { summaryComponents: [{ compensationType: 'Salary', interval: '1 TIME', currencyCode: 'USD', minValue: 60, maxValue: 60 }] };
    expect(ashbySalary(compensation)).toEqual({ min: 60, max: 60, currency: 'USD', period: null });
  });

  it('ignores equity, bonus and commission components and salary components without amounts', () => {
    expect(ashbySalary({ summaryComponents: [{ compensationType: 'EquityPercentage', interval: 'NONE', minValue: 0.1, maxValue: 0.5 }] })).toBeUndefined();
    expect(ashbySalary({ summaryComponents: [{ compensationType: 'Salary', interval: '1 YEAR', currencyCode: 'EUR', minValue: null, maxValue: null }] })).toBeUndefined();
    expect(ashbySalary(null)).toBeUndefined();
  });
});

async function postingsOfOne(board: string, id: string, extra: Partial<CrawlTarget>): Promise<SourcePosting> {
  const posting = (await postingsOf(board, extra)).find((p) => p.sourcePostingId === id);
  if (!posting) throw new Error(`no posting ${id} on ${board}`);
  return posting;
}
