/**
 * The Recruitee connector on the recorded Aikido Security answer (fixtures/recruitee), fetched from
 * the loopback replay server on the real API's path.
 */
import { describe, expect, it } from 'vitest';
import { readFixture, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createRecruiteeConnector, recruiteeSalary } from './recruitee.ts';

const replay = useConnectorReplay('recruitee', createRecruiteeConnector);
const { target } = replay;
const raw = (readFixture('recruitee', 'aikidosecurity') as { offers: Record<string, string>[] }).offers;


describe('Recruitee connector', () => {
  it('fetches {company}.recruitee.com/api/offers/ and maps the Chicago offer field by field', async () => {
    expect(createRecruiteeConnector('https://{company}.recruitee.com').boardUrl(target('aikidosecurity'))).toBe('https://aikidosecurity.recruitee.com/api/offers/');
    const outcome = await replay.fetched('aikidosecurity');
    expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual(['2707521', '2707517', '2705729']);
    const chicago = raw[2]!;
    expect(outcome.postings[2]).toEqual({
      sourcePostingId: '2705729',
      title: 'Office Manager Chicago',
      company: { name: 'Aikido Security' },
      location: 'Chicago, Illinois, United States',
      locations: [{ text: 'Chicago', country: 'US', region: 'Illinois', city: 'Chicago' }],
      remoteFlag: 'on_site',
      employmentType: 'fulltime_permanent',
      postedAt: '2026-08-10T15:13:59.000Z',
      descriptionHtml: `${chicago['description']}<h3>Job requirements</h3>${chicago['requirements']}`,
      salary: { min: 75, max: 95, currency: 'USD', period: 'annual' },
      applyUrl: 'https://aikidosecurity.recruitee.com/o/office-manager-chicago/c/new',
      postingUrl: 'https://aikidosecurity.recruitee.com/o/office-manager-chicago',
      hints: { department: 'Operations' },
    });
    expect(outcome.postings[0]!.remoteFlag).toBe('remote');
    expect(outcome.postings[0]).not.toHaveProperty('salary');
  });

  it('refuses a board that is not a host label, so a board cannot name another host', async () => {
    await expect(replay.connector.crawl(target('evil.example/x'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'blocked' });
  });

  it('returns an offer whose status is not published as gone and reads close_at', async () => {
    const [a, b] = raw;
    replay.loop.replay.override('/recruitee/mixed/api/offers/', { json: { offers: [{ ...a, close_at: '2026-12-31 23:00:00 UTC' }, { ...b, status: 'closed' }] } });
    const outcome = await replay.connector.crawl(target('mixed'), replay.loop.fetcher);
    expect(outcome).toMatchObject({ kind: 'fetched', gone: ['2707517'] });
    if (outcome.kind === 'fetched') expect(outcome.postings.map((p) => [p.sourcePostingId, p.closesAt])).toEqual([['2707521', '2026-12-31T23:00:00.000Z']]);
  });

  it('maps salary periods and refuses a salary without amounts', () => {
    expect(recruiteeSalary({ min: '3000', max: null, currency: 'eur', period: 'month' })).toEqual({ min: 3000, currency: 'EUR', period: 'monthly' });
    expect(recruiteeSalary({ min: 20, max: 25, currency: 'EUR', period: 'shift' })).toEqual({ min: 20, max: 25, currency: 'EUR', period: null });
    expect(recruiteeSalary({ min: null, max: null, period: 'year', currency: null })).toBeUndefined();
  });
});
