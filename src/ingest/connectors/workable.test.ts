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

/**
 * The v3 board (`v3:{account}`): the hosted careers page's list API and per-job details, on the
 * hand-written Halcyon Biosystems answers (fixtures/workable/v3, in the shape the fixture README names).
 */
describe('Workable connector, v3 careers-page API', () => {
  const V3 = 'v3:halcyon-bio';
  const details = readFixture('workable', 'v3/halcyon-bio/3F9A1C0B27') as Record<string, string>;

  it('posts the careers page search, follows nextPage by token, reads each job\'s details and maps them field by field', async () => {
    expect(replay.connector.boardUrl(target(V3))).toBe(`${replay.loop.replay.url}/api/v3/accounts/halcyon-bio/jobs`);
    replay.loop.replay.requests.length = 0;
    const outcome = await replay.fetched(V3, { companyName: 'Halcyon Biosystems' });
    const lists = replay.loop.replay.requests.filter((r) => r.path === '/api/v3/accounts/halcyon-bio/jobs');
    expect(lists.map((r) => r.method)).toEqual(['POST', 'POST']);
    const detailPaths = replay.loop.replay.requests.filter((r) => r.path.startsWith('/api/v2/')).map((r) => r.path).sort();
    // The internal job is not a public vacancy: it is neither asked for nor listed.
    expect(detailPaths).toEqual(['3F9A1C0B27', '5E6D2F80B4', '8D21E4A6C5', 'C07B5E913A'].map((s) => `/api/v2/accounts/halcyon-bio/jobs/${s}`));
    expect(outcome.skipped).toBe(0);
    expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual(['3F9A1C0B27', '8D21E4A6C5', 'C07B5E913A', '5E6D2F80B4']);
    expect(outcome.postings[0]).toEqual({
      sourcePostingId: '3F9A1C0B27',
      title: 'Senior Bioinformatics Engineer',
      company: { name: 'Halcyon Biosystems' },
      location: 'Amsterdam, North Holland, Netherlands',
      locations: [{ text: 'Amsterdam, North Holland, Netherlands', country: 'NL', region: 'North Holland', city: 'Amsterdam' }],
      remoteFlag: 'hybrid',
      employmentType: 'Full-time',
      postedAt: '2026-11-03T00:00:00.000Z',
      descriptionHtml: `${details['description']}<h3>Requirements</h3>${details['requirements']}<h3>Benefits</h3>${details['benefits']}`,
      applyUrl: 'https://apply.workable.com/halcyon-bio/j/3F9A1C0B27/apply/',
      postingUrl: 'https://apply.workable.com/halcyon-bio/j/3F9A1C0B27/',
      hints: { department: 'Research / Computational Biology' },
    });
    expect(outcome.postings.map((p) => [p.remoteFlag, p.employmentType, p.location])).toEqual([
      ['hybrid', 'Full-time', 'Amsterdam, North Holland, Netherlands'],
      ['on_site', 'Part-time', 'Leiden, South Holland, Netherlands'],
      ['remote', 'Full-time', 'Germany'],
      ['on_site', 'Temporary', 'Ghent, Flanders, Belgium'],
    ]);
    // No benefits stated: no empty heading.
    expect(outcome.postings[1]!.descriptionHtml).not.toContain('Benefits');
    // 5E6D2F80B4 is only on the page the replay serves for the first page's token.
    expect(outcome.siteState).toMatchObject({ details: { '3F9A1C0B27': { etag: expect.stringMatching(/^"/) } } });
  });

  it('recrawls with If-None-Match on every job\'s details: an unchanged board is not_modified', async () => {
    const first = await replay.fetched(V3);
    replay.loop.replay.requests.length = 0;
    const again = await replay.connector.crawl(target(V3, { siteState: first.siteState }), replay.loop.fetcher);
    expect(again).toEqual({ kind: 'not_modified' });
    const detailRequests = replay.loop.replay.requests.filter((r) => r.path.startsWith('/api/v2/'));
    expect(detailRequests).toHaveLength(4);
    for (const r of detailRequests) expect(r.headers['if-none-match']).toMatch(/^"/);
  });

  it('refuses a v3 board that is no account name, a list without results, and a page token that loops', async () => {
    await expect(replay.connector.crawl(target('v3:../etc'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'blocked' });
    replay.loop.replay.override('/api/v3/accounts/broken/jobs', { json: { total: 1, results: 'none' } });
    await expect(replay.connector.crawl(target('v3:broken'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'malformed' });
    replay.loop.replay.override('/api/v3/accounts/looping/jobs', { json: { total: 20, results: [{ shortcode: 'X', title: 'Y', state: 'published' }], nextPage: 'same' } });
    await expect(replay.connector.crawl(target('v3:looping'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'malformed', message: expect.stringContaining('names an earlier page again') });
  });
});
