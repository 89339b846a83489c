/**
 * The Workable connector on the recorded Vasion widget answer (fixtures/workable), fetched from the
 * loopback replay server on the real API's path.
 */
import { describe, expect, it } from 'vitest';
import { readFixture, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createWorkableConnector } from './workable.ts';

const replay = useConnectorReplay('workable', createWorkableConnector);
const { target } = replay;
const raw = (readFixture('workable', 'vasion') as { jobs: Record<string, string>[] }).jobs;


describe('Workable connector', () => {
  it('fetches the widget API with details and maps the London job field by field', async () => {
    expect(replay.connector.boardUrl(target('vasion'))).toBe(`${replay.loop.replay.url}/api/v1/widget/accounts/vasion?details=true`);
    const outcome = await replay.fetched('vasion');
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
    replay.loop.replay.override('/api/v1/widget/accounts/hidden', { json: { name: 'H', jobs: [{ ...raw[0], locations: [{ country: 'Australia', countryCode: 'AU', city: '', region: '', hidden: true }] }] } });
    const outcome = await replay.fetched('hidden');
    expect(outcome.postings[0]!.locations).toEqual([{ text: 'New South Wales, Australia', country: 'Australia', region: 'New South Wales' }]);
    replay.loop.replay.override('/api/v1/widget/accounts/broken', { json: { name: 'B' } });
    await expect(replay.connector.crawl(target('broken'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'malformed' });
  });
});
