/**
 * The Lever connector on the hand-written sites (fixtures/lever, real Postings API shape), fetched from
 * the loopback replay server.
 */
import { describe, expect, it } from 'vitest';
import type { SourcePosting } from '../../domain/posting.ts';
import { readFixture, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createLeverConnector, leverSalary } from './lever.ts';

const replay = useConnectorReplay('lever', createLeverConnector);
const { target, postingsOf } = replay;

const byTitle = (postings: SourcePosting[], title: string) => postings.find((p) => p.title === title)!;

describe('Lever connector', () => {
  it('reads both sites on the real path', async () => {
    expect(replay.connector.boardUrl(target('kestrel-mobility'))).toBe(`${replay.loop.replay.url}/v0/postings/kestrel-mobility?mode=json`);
    expect((await postingsOf('tessellate')).length).toBe(6);
    expect((await postingsOf('kestrel-mobility')).length).toBe(6);
  });

  it('maps tessellate 3f6c2a91 (hybrid, London + Manchester, GBP per year) field by field', async () => {
    const posting = (await postingsOf('tessellate', { companyName: 'Tessellate Analytics' })).find((p) => p.sourcePostingId === '3f6c2a91-5d0e-4b7a-9c21-7e84d1b0a5f2');
    const raw = (readFixture('lever', 'tessellate') as Record<string, unknown>[]).find((p) => p['id'] === '3f6c2a91-5d0e-4b7a-9c21-7e84d1b0a5f2')!;
    const lists = raw['lists'] as { text: string; content: string }[];
    expect(posting).toEqual({
      sourcePostingId: '3f6c2a91-5d0e-4b7a-9c21-7e84d1b0a5f2',
      title: 'Senior Data Scientist, Forecasting',
      company: { name: 'Tessellate Analytics' },
      location: 'London',
      locations: [{ text: 'London', country: 'GB' }, { text: 'Manchester' }],
      remoteFlag: 'hybrid',
      employmentType: 'Full-time',
      postedAt: '2026-10-03T10:00:00.000Z',
      descriptionHtml:
        (raw['description'] as string) + lists.map((l) => `<h3>${l.text}</h3><ul>${l.content}</ul>`).join('') + (raw['additional'] as string),
      salary: { min: 78000, max: 92000, currency: 'GBP', period: 'annual' },
      applyUrl: 'https://jobs.lever.co/tessellate/3f6c2a91-5d0e-4b7a-9c21-7e84d1b0a5f2/apply',
      postingUrl: 'https://jobs.lever.co/tessellate/3f6c2a91-5d0e-4b7a-9c21-7e84d1b0a5f2',
      hints: { department: 'Data Science', team: 'Forecasting' },
    });
  });

  it('maps workplaceType and salary intervals', async () => {
    const kestrel = await postingsOf('kestrel-mobility');
    const tess = await postingsOf('tessellate');
    expect(byTitle(tess, 'Analytics Engineer').remoteFlag).toBe('remote');
    expect(byTitle(kestrel, 'Fleet Operations Manager').remoteFlag).toBe('on_site');
    expect(byTitle(tess, 'General Application')).not.toHaveProperty('remoteFlag');
    expect(byTitle(tess, 'Data Annotation Specialist (Part-time)').salary).toEqual({ min: 22000, max: 27000, currency: 'PHP', period: 'monthly' });
    expect(byTitle(tess, 'Working Student, Product (m/f/d)').salary).toEqual({ min: 16, max: 18, currency: 'EUR', period: 'hourly' });
    expect(byTitle(kestrel, 'Customer Care Agent (Seasonal, French)').salary).toEqual({ min: 95, max: 110, currency: 'EUR', period: 'daily' });
    expect(byTitle(kestrel, 'Embedded Firmware Engineer').salary).toEqual({ min: 2800000, max: 3600000, currency: 'INR', period: 'annual' });
    expect(byTitle(kestrel, 'City Launch Lead')).not.toHaveProperty('salary');
  });

  it('names the company by the site when the target has no display name; handles a posting with no location', async () => {
    const general = byTitle(await postingsOf('tessellate'), 'General Application');
    expect(general.company).toEqual({ name: 'tessellate' });
    expect(general).not.toHaveProperty('location');
    expect(general.locations).toEqual([]);
    expect(general.postedAt).toBe('2026-06-01T09:00:00.000Z');
    const remote = byTitle(await postingsOf('kestrel-mobility'), 'Senior Backend Engineer (Kotlin)');
    expect(remote.locations).toEqual([{ text: 'Remote - Europe' }]);
  });

  it('escapes list titles, which are plain text', async () => {
    const technician = byTitle(await postingsOf('kestrel-mobility'), 'Vehicle Technician');
    expect(technician.descriptionHtml).toContain('<h3>Pay &amp; benefits</h3><ul><li>Monthly public-transport pass.</li>');
    expect(technician.salary).toEqual({ min: 1300, max: 1550, currency: 'EUR', period: 'monthly' });
  });

  it('refuses an answer that is not an array, e.g. an error object', async () => {
    replay.loop.replay.override('/v0/postings/gone', { json: { ok: false, error: 'Document not found' } });
    await expect(replay.connector.crawl(target('gone'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'malformed' });
  });
});

describe('leverSalary', () => {
  it('keeps an unknown interval as period null and refuses a range without amounts', () => {
    expect(leverSalary({ currency: 'usd', interval: 'one-time', min: 500, max: 500 })).toEqual({ min: 500, max: 500, currency: 'USD', period: null });
    expect(leverSalary({ currency: 'USD', interval: 'per-year-salary' })).toBeUndefined();
    expect(leverSalary({ currency: 'USD', interval: 'per-week-salary', min: 900 })).toEqual({ min: 900, currency: 'USD', period: 'weekly' });
  });
});
