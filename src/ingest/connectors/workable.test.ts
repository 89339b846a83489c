/**
 * The Workable connector on the recorded Vasion widget answer (fixtures/workable), fetched from the
 * loopback replay server on the real API's path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrawlTarget } from '../connector.ts';
import { readFixture, startLoopback } from '../../../test/helpers/fixtures.ts';
import { createWorkableConnector } from './workable.ts';

let loop: Awaited<ReturnType<typeof startLoopback>>;
let workable: ReturnType<typeof createWorkableConnector>;
const target = (board: string): CrawlTarget => ({ id: `workable:${board}`, providerId: 'workable', board });
const raw = (readFixture('workable', 'vasion') as { jobs: Record<string, string>[] }).jobs;

beforeAll(async () => {
  loop = await startLoopback();
  workable = createWorkableConnector(loop.replay.baseUrls.workable);
});
afterAll(async () => {
  await loop.close();
});

describe('Workable connector', () => {
  it('fetches the widget API with details and maps the London job field by field', async () => {
    expect(workable.boardUrl(target('vasion'))).toBe(`${loop.replay.url}/api/v1/widget/accounts/vasion?details=true`);
    const outcome = await workable.crawl(target('vasion'), loop.fetcher);
    if (outcome.kind !== 'fetched') throw new Error('expected fetched');
    expect(outcome.etag).toMatch(/^"/);
    expect(outcome.postings[1]).toEqual({
      sourcePostingId: '15F16B8D99',
      title: 'Account Executive - UK&I / Northern Europe',
      company: { name: 'Vasion' },
      location: 'London, England, United Kingdom',
      locations: [{ text: 'London, England, United Kingdom', country: 'GB', region: 'England', city: 'London' }],
      remoteFlag: 'not_remote',
      employmentType: 'Full-time',
      postedAt: '2026-08-10T00:00:00.000Z',
      descriptionHtml: raw[1]!['description'],
      applyUrl: 'https://apply.workable.com/j/15F16B8D99/apply',
      postingUrl: 'https://apply.workable.com/j/15F16B8D99',
      hints: { department: 'Sales - International', team: 'Sales' },
    });
    expect(outcome.postings[0]).toMatchObject({ remoteFlag: 'remote', locations: [{ text: 'New South Wales, Australia', country: 'AU', region: 'New South Wales' }] });
  });

  it('leaves hidden locations out and refuses an answer without a jobs array', async () => {
    loop.replay.override('/api/v1/widget/accounts/hidden', { json: { name: 'H', jobs: [{ ...raw[0], locations: [{ country: 'Australia', countryCode: 'AU', city: '', region: '', hidden: true }] }] } });
    const outcome = await workable.crawl(target('hidden'), loop.fetcher);
    if (outcome.kind !== 'fetched') throw new Error('expected fetched');
    expect(outcome.postings[0]!.locations).toEqual([{ text: 'New South Wales, Australia', country: 'Australia', region: 'New South Wales' }]);
    loop.replay.override('/api/v1/widget/accounts/broken', { json: { name: 'B' } });
    await expect(workable.crawl(target('broken'), loop.fetcher)).rejects.toMatchObject({ kind: 'malformed' });
  });
});
