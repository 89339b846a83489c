/**
 * The paged-handler helper and its cursor formats. Cursors are held by clients across restarts and
 * upgrades, so the query fingerprints are pinned: the values below were computed by the listing code
 * before the query tables existed, and a cursor issued then must still be accepted.
 */
import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../domain/cursor.ts';
import { ApiError } from '../domain/errors.ts';
import { feedCursor, keysetCursor, servePage } from './paging.ts';
import type { RecordMeter } from './record-meter.ts';
import { keyedDirectoryQuery } from './schemas/companies.ts';
import { keyedJobsQuery } from './schemas/jobs.ts';
import type { ListingContext } from './schemas/listing-filters.ts';
import { closedJobsQuery } from './schemas/sync.ts';

const SECRET = 'pinned-secret';
const POSITION = { key: '2026-11-01 00:00:00+00', id: '0190b7a4-3c2e-7d1a-9f00-2b7c5e8d4a10' };
const ctx: ListingContext = { surface: 'keyed', providers: ['ashby', 'greenhouse', 'lever', 'usajobs'], maxLimit: 200, countryLock: 'DE' };

/** Every shared filter, the scope and the closure window, in unusual spellings. */
const RICH = {
  category: 'ENGINEERING,operations & admin,Uncategorised', exclude_category: 'sales', country: 'us,De', exclude_country: 'fr', city: 'San Francisco,PARIS',
  state: 'ca,Ny', remote: 'REMOTE,On-Site,not_stated', remote_confirmed: 'TRUE', employment_type: 'full_time,PART-TIME,not_stated', seniority: 'SENIOR,not_stated',
  provider: 'ASHBY,Lever', exclude_provider: 'USAJOBS', source_type: 'employer_ats,GOVERNMENT,direct,Aggregator', exclude_source_type: 'career_site',
  company: 'Acme,ACME', company_domain: 'https://www.Acme.com/careers,beta.io', exclude_company_domain: 'gamma.org', has_salary: 'Any', min_salary: '40000',
  max_salary: '90000.5', has_description: 'False', require_fields: 'SALARY,remote,salary', posted_after: '2026-01-01', verified_after: '2026-01-02T00:00:00Z',
  q: ' data engineer ', title: 'engineer', title_exclude: 'intern', description_contains: 'kubernetes',
  status: 'any', quality: 'all', include_poster_type: 'staffing', closed_after: '2026-01-01', closed_before: '2026-02-01T00:00:00Z', closed_reason: 'NOT_SEEN,expired_upstream',
  include_description: 'true', limit: '10',
};

describe('keyset cursors', () => {
  it('accepts cursors issued before the query tables: /v1/jobs, /v1/jobs/closed and /v1/companies fingerprints are unchanged', () => {
    const jobs = keyedJobsQuery.parse(RICH, ctx);
    expect(keysetCursor(SECRET, '/v1/jobs', { filter: jobs.filter, scope: jobs.scope }).decode(encodeCursor(SECRET, 'nXwbI-0Q-vNR', POSITION))).toEqual(POSITION);
    const plain = keyedJobsQuery.parse({}, { ...ctx, countryLock: undefined });
    expect(keysetCursor(SECRET, '/v1/jobs', { filter: plain.filter, scope: plain.scope }).decode(encodeCursor(SECRET, '7fCDPjvEs1Dr', POSITION))).toEqual(POSITION);
    const closed = closedJobsQuery.parse(RICH, ctx);
    expect(keysetCursor(SECRET, '/v1/jobs/closed', { filter: closed.listing.filter, closed: closed.closed }).decode(encodeCursor(SECRET, 'jcWH3B2IYgYI', POSITION))).toEqual(POSITION);
    const directory = keyedDirectoryQuery.parse(
      { country: 'us,de', org_type: 'Government', source_type: 'employer_ats,career_site', has_website: 'yes', include_discovered: '1', q: ' acme ' },
      { surface: 'keyed', maxLimit: 200, countryLock: 'US' },
    );
    expect(keysetCursor(SECRET, '/v1/companies', { filter: directory.filter }).decode(encodeCursor(SECRET, 'LGLq7pX7cFf1', POSITION))).toEqual(POSITION);
    const all = keyedDirectoryQuery.parse({}, { surface: 'keyed', maxLimit: 200 });
    expect(keysetCursor(SECRET, '/v1/companies', { filter: all.filter }).decode(encodeCursor(SECRET, '3lbGr0yomqgC', POSITION))).toEqual(POSITION);
  });

  it('round-trips a position and refuses, one way, a cursor that is altered or from another query or endpoint', () => {
    const codec = keysetCursor(SECRET, '/v1/jobs', { filter: { country: ['DE'] } });
    const cursor = codec.encode(POSITION);
    expect(codec.decode(cursor)).toEqual(POSITION);
    expect(codec.decode(undefined)).toBeUndefined();
    const other = [keysetCursor(SECRET, '/v1/jobs', { filter: { country: ['FR'] } }), keysetCursor(SECRET, '/v1/jobs/closed', { filter: { country: ['DE'] } })];
    for (const bad of [`${cursor}x`, cursor.slice(0, 20), 'garbage', ...other.map((c) => c.encode(POSITION))]) {
      expect(() => codec.decode(bad)).toThrow(
        expect.objectContaining({ code: 'bad_cursor', message: expect.stringContaining('Pass back the next_cursor of the previous /v1/jobs page verbatim') }),
      );
    }
  });
});

describe('feed cursors', () => {
  it('need since, tell a bad timestamp from a bad cursor, and encode <timestamp>|<uuid>', () => {
    const codec = feedCursor('/v1/changes');
    expect(() => codec.decode(undefined)).toThrow(expect.objectContaining({ code: 'bad_timestamp' }));
    expect(() => codec.decode('soon')).toThrow(expect.objectContaining({ code: 'bad_timestamp' }));
    expect(() => codec.decode('2026-11-01T00:00:00Z|x')).toThrow(expect.objectContaining({ code: 'bad_cursor' }));
    expect(codec.decode('2026-11-01T00:00:00Z')).toEqual({ at: '2026-11-01T00:00:00Z', id: '00000000-0000-0000-0000-000000000000' });
    expect(codec.encode({ at: '2026-11-01T00:00:00.000Z', id: POSITION.id })).toBe(`2026-11-01T00:00:00.000Z|${POSITION.id}`);
  });
});

/** A meter with `left` records: grants what remains, refuses none left, records what was settled. */
function meterWith(left: number): RecordMeter & { settled: number[] } {
  const settled: number[] = [];
  return {
    settled,
    reserve: async (wanted) => {
      if (left <= 0) throw new ApiError('record_quota_exhausted', 'No records left.');
      return Math.min(wanted, left);
    },
    settle: async (used) => {
      settled.push(used);
      left -= used;
    },
  };
}

describe('servePage', () => {
  const rows = Array.from({ length: 10 }, (_, i) => ({ key: String(i), id: `0190b7a4-3c2e-7d1a-9f00-2b7c5e8d4a1${i}` }));
  const read = async (after: { key: string } | undefined, granted: number) => {
    const start = after ? Number(after.key) + 1 : 0;
    const page = rows.slice(start, start + granted);
    const last = page[page.length - 1];
    return { rows: page, next: start + granted < rows.length && last ? last : undefined };
  };

  it('cuts the page to what the meter grants, settles what was served, and points the next cursor at the first row not served', async () => {
    const codec = keysetCursor(SECRET, '/v1/jobs', {});
    const meter = meterWith(3);
    const first = await servePage({ meter, cursor: codec, limit: 5, read });
    expect(first.rows.map((r) => r.key)).toEqual(['0', '1', '2']);
    expect(meter.settled).toEqual([3]);
    expect(codec.decode(first.nextCursor!)).toEqual(rows[2]);
    await expect(servePage({ meter, cursor: codec, sent: first.nextCursor!, limit: 5, read })).rejects.toMatchObject({ code: 'record_quota_exhausted' });
  });

  it('charges what `records` says, decodes before it reserves, and never pages without a cursor format', async () => {
    const meter = meterWith(100);
    const page = await servePage({ meter, cursor: keysetCursor(SECRET, '/v1/jobs', {}), limit: 4, read, records: (served) => served.length - 1 });
    expect(meter.settled).toEqual([3]);
    expect(page.after).toBeUndefined();
    await expect(servePage({ meter, cursor: keysetCursor(SECRET, '/v1/jobs', {}), sent: 'garbage', limit: 4, read })).rejects.toMatchObject({ code: 'bad_cursor' });
    expect(meter.settled).toEqual([3]);
    expect((await servePage({ meter, limit: 4, read })).nextCursor).toBeNull();
  });
});
