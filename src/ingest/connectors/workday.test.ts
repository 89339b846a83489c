/**
 * The Workday connector on the recorded GDIT answers (fixtures/workday), fetched from the loopback
 * replay server on the real CXS paths (the job search is a POST).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { FIXTURES, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createWorkdayConnector, workdayBoard } from './workday.ts';

const BOARD = 'gdit.wd5.myworkdayjobs.com/gdit/External_Career_Site';
const BASE = '/workday/gdit.wd5.myworkdayjobs.com/wday/cxs/gdit/External_Career_Site';
const replay = useConnectorReplay('workday', createWorkdayConnector);
const target = (board = BOARD) => replay.target(board);
const read = (...parts: string[]) => JSON.parse(readFileSync(path.join(FIXTURES, 'workday', BOARD, ...parts), 'utf8')) as Record<string, unknown>;
const list = read('jobs.json') as { jobPostings: Record<string, unknown>[] };
const details = read('job', 'USA-DC-Washington', 'Data-Engineer_RQ216675.json') as { jobPostingInfo: Record<string, string> };

beforeEach(() => {
  replay.loop.replay.requests.length = 0;
});

describe('Workday connector', () => {
  it('POSTs the search, GETs each posting\'s details and maps the recorded GDIT posting field by field', async () => {
    expect(createWorkdayConnector('https://{host}').boardUrl(target())).toBe('https://gdit.wd5.myworkdayjobs.com/wday/cxs/gdit/External_Career_Site/jobs');
    const outcome = await replay.fetched(BOARD);
    expect(replay.loop.replay.requests[0]).toMatchObject({ method: 'POST', path: `${BASE}/jobs` });
    expect(replay.loop.replay.requests.slice(1).every((r) => r.method === 'GET')).toBe(true);
    expect(outcome.postings).toEqual([
      {
        sourcePostingId: 'Data-Engineer_RQ216675',
        title: 'Data Engineer',
        company: { name: 'GD Information Technology, Inc.' },
        location: 'USA DC Washington',
        locations: [{ text: 'USA DC Washington', country: 'US' }],
        employmentType: 'Full time',
        postedAt: '2026-07-07T00:00:00.000Z',
        descriptionHtml: details.jobPostingInfo['jobDescription'],
        applyUrl: 'https://gdit.wd5.myworkdayjobs.com/External_Career_Site/job/USA-DC-Washington/Data-Engineer_RQ216675',
        postingUrl: 'https://gdit.wd5.myworkdayjobs.com/External_Career_Site/job/USA-DC-Washington/Data-Engineer_RQ216675',
      },
    ]);
    // The three listed postings whose details were not recorded answer 404: the source says they are gone.
    expect(outcome.gone?.sort()).toEqual(['Cloud-Data-Engineer_RQ221571-1', 'Data-Engineer---TS-SCI-with-Polygraph_RQ223218', 'Data-Engineer-Senior-Principal--Hybrid-_RQ222489-1']);
  });

  it('pages by offset 20 while pages are full and below the first page\'s total', async () => {
    const first = list.jobPostings[0]!;
    const many = Array.from({ length: 20 }, () => first);
    replay.loop.replay.override(`${BASE}/jobs`, { json: { total: 25, jobPostings: many } });
    const outcome = replay.connector.crawl(target(), replay.loop.fetcher);
    const done = await outcome;
    expect(done.kind).toBe('fetched');
    const searches = replay.loop.replay.requests.filter((r) => r.method === 'POST');
    expect(searches.length).toBe(2);
    replay.loop.replay.override(`${BASE}/jobs`, null);
  });

  it('says posted: false is gone and refuses a board that is not {host}/{tenant}/{site} on a Workday host', async () => {
    replay.loop.replay.override(`${BASE}/job/USA-DC-Washington/Data-Engineer_RQ216675`, { json: { ...details, jobPostingInfo: { ...details.jobPostingInfo, posted: false } } });
    const outcome = await replay.connector.crawl(target(), replay.loop.fetcher);
    expect(outcome).toMatchObject({ kind: 'fetched', postings: [] });
    if (outcome.kind === 'fetched') expect(outcome.gone).toContain('Data-Engineer_RQ216675');
    replay.loop.replay.override(`${BASE}/job/USA-DC-Washington/Data-Engineer_RQ216675`, null);
    for (const board of ['evil.example.com/a/b', 'gdit.wd5.myworkdayjobs.com/gdit', 'gdit.wd5.myworkdayjobs.com/gdit/Site/extra', 'x.myworkdayjobs.com/../b']) {
      expect(() => workdayBoard(target(board)), board).toThrow(/Workday board/);
    }
  });
});
