/**
 * The fast `timestamptz` decoder gives the driver's instant for every form PostgreSQL sends, read
 * from the real server rather than from hand-written strings.
 */
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { parseTimestamptz } from './database.ts';

describe('parseTimestamptz', () => {
  it('decodes what the server sends exactly as the driver does, in any session time zone', async () => {
    const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await client.connect();
    try {
      const driver = pg.types.getTypeParser(1184, 'text') as (value: string) => unknown;
      const inputs = [
        '2026-11-25 07:20:48.287644+00',
        '2026-11-25 07:20:48+00',
        '2026-01-01 00:00:00.999999-03',
        '2020-02-29 23:59:59.5+00',
        '1999-12-31 23:59:59.001+05:30',
        '0099-06-01 00:00:00+00',
        '2000-01-01 00:00:00+00 BC',
        'infinity',
        '-infinity',
      ];
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam']) {
        await client.query(`SET TIME ZONE '${zone}'`);
        const { rows } = await client.query<{ t: string }>({ text: 'SELECT t::timestamptz::text AS t FROM unnest($1::text[]) AS t', values: [inputs] });
        for (const { t } of rows) {
          const expected = driver(t);
          const got = parseTimestamptz(t);
          expect(got instanceof Date ? got.toISOString() : got, t).toEqual(expected instanceof Date ? expected.toISOString() : expected);
        }
      }
    } finally {
      await client.end();
    }
  });
});
