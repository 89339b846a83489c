/**
 * The USAJOBS connector on the recorded announcement files (fixtures/usajobs, from
 * github.com/abigailhaddad/usajobs_historical), fetched from the loopback replay server on the
 * raw.githubusercontent.com path.
 */
import { describe, expect, it } from 'vitest';
import { CrawlError } from '../connector.ts';
import { readFixture, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createUsajobsConnector } from './usajobs.ts';

const replay = useConnectorReplay('usajobs', createUsajobsConnector);
const { target, postingsOf } = replay;

describe('USAJOBS connector', () => {
  it('fetches the file on the upstream path', () => {
    expect(replay.connector.boardUrl(target('jobs_judicial_branch'))).toBe(
      `${replay.loop.replay.url}/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs/jobs_judicial_branch.json`,
    );
  });

  it('reads every announcement of the three files (one duplicate control number in the legislative file)', async () => {
    expect((await postingsOf('jobs_judicial_branch')).length).toBe(1042);
    expect((await postingsOf('jobs_department_of_education')).length).toBe(598);
    const legislative = await postingsOf('jobs_legislative_branch');
    expect((readFixture('usajobs', 'jobs_legislative_branch') as unknown[]).length).toBe(3084);
    expect(legislative.length).toBe(3083);
  });

  it('maps judicial branch 808249900 (U.S. Probation Officer) field by field', async () => {
    const posting = (await postingsOf('jobs_judicial_branch')).find((p) => p.sourcePostingId === '808249900');
    expect(posting).toEqual({
      sourcePostingId: '808249900',
      title: 'U.S. Probation Officer',
      company: { name: 'Judicial Branch' },
      locations: [],
      employmentType: 'Permanent',
      postedAt: '2024-09-06T00:00:00.000Z',
      closesAt: '2025-09-05T23:59:59.000Z',
      applyUrl: 'https://www.usajobs.gov/job/808249900',
      postingUrl: 'https://www.usajobs.gov/job/808249900',
      hints: { occupationSeries: ['0007 - Correctional Officer'] },
    });
  });

  it('names the hiring agency as the company', async () => {
    const education = await postingsOf('jobs_department_of_education');
    const raw = readFixture('usajobs', 'jobs_department_of_education') as { control_number: number; agency: string }[];
    const fsa = raw.find((r) => r.agency === 'Federal Student Aid')!;
    expect(education.find((p) => p.sourcePostingId === String(fsa.control_number))?.company).toEqual({ name: 'Federal Student Aid' });
  });

  it('keeps the later announcement of a re-announced control number (legislative 803545200)', async () => {
    const posting = (await postingsOf('jobs_legislative_branch')).find((p) => p.sourcePostingId === '803545200');
    expect(posting).toMatchObject({
      title: 'Green & Gold Congressional Aide',
      company: { name: 'Legislative Branch' },
      postedAt: '2025-09-09T00:00:00.000Z',
      closesAt: '2026-09-08T23:59:59.000Z',
      employmentType: 'Temporary',
    });
  });

  it('refuses an answer that is not an array of announcements', async () => {
    const path = '/abigailhaddad/usajobs_historical/main/tracking/public/data/raw_jobs/jobs_broken.json';
    replay.loop.replay.override(path, { json: { jobs: [] } });
    await expect(replay.connector.crawl(target('jobs_broken'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'malformed' });
    replay.loop.replay.override(path, { status: 200, body: '404: Not Found' });
    await expect(replay.connector.crawl(target('jobs_broken'), replay.loop.fetcher)).rejects.toBeInstanceOf(CrawlError);
    replay.loop.replay.override(path, { json: [{ control_number: 1, position_title: '' }, { position_title: 'Clerk' }, { control_number: 2, position_title: 'Clerk', open_date: '2025-02-30' }] });
    const outcome = await replay.connector.crawl(target('jobs_broken'), replay.loop.fetcher);
    expect(outcome).toMatchObject({ kind: 'fetched', skipped: 2 });
    // An impossible date is not a date: no postedAt rather than a rolled-over one.
    if (outcome.kind === 'fetched') expect(outcome.postings).toEqual([{ sourcePostingId: '2', title: 'Clerk', company: { name: 'jobs_broken' }, locations: [] }]);
  });

  it('returns not_modified to a conditional crawl', async () => {
    const first = await replay.connector.crawl(target('jobs_department_of_education'), replay.loop.fetcher);
    if (first.kind !== 'fetched') throw new Error('expected fetched');
    expect(await replay.connector.crawl(target('jobs_department_of_education', { etag: first.etag }), replay.loop.fetcher)).toEqual({ kind: 'not_modified' });
  });
});
