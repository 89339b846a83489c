/**
 * The full-text vectors of `jobs` (title_tsv, search_tsv, description_tsv) are kept by the trigger of
 * migration 029 instead of being stored generated columns (issue 22: a re-verification no longer
 * re-tokenizes the description and rewrites every index). What a user sees must not change: on the
 * imported real corpus, and after every kind of write, each vector is exactly its migration-014
 * expression over the row's current text, and the API's text filters find a row by its new words and
 * no longer by its old ones. The speed itself is measured by `npm run bench` (ingest re-crawl).
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { bearer, useCorpusApp } from './helpers/app.ts';

/** Rows whose stored vectors differ from what migration 014's expressions give for their text now. */
const STALE_VECTORS = sql<{ stale: number }>`
  SELECT count(*)::int AS stale FROM jobs
  WHERE title_tsv IS DISTINCT FROM to_tsvector('simple'::regconfig, jobledger_search_text(title))
     OR search_tsv IS DISTINCT FROM to_tsvector('simple'::regconfig, jobledger_search_text(title || ' ' || company_name || ' ' || coalesce(location, '')))
     OR description_tsv IS DISTINCT FROM to_tsvector('simple'::regconfig, jobledger_search_text(left(coalesce(description_text, ''), 200000)))`;

describe('full-text vectors kept by trigger (migration 029)', () => {
  const ctx = useCorpusApp({ key: 'unlimited' });

  async function stale(): Promise<number> {
    return (await STALE_VECTORS.execute(ctx.t.db)).rows[0]!.stale;
  }

  async function ids(query: string): Promise<string[]> {
    const response = await ctx.app.inject({ url: `/v1/jobs?${query}&limit=100`, headers: bearer(ctx.key) });
    expect(response.statusCode).toBe(200);
    return (response.json() as { data: Job[] }).data.map((j) => j.id);
  }

  async function someServedRow(offset: number): Promise<{ id: string; title: string }> {
    return ctx.t.db.selectFrom('jobs').select(['id', 'title']).where('served', '=', true).where('has_description', '=', true).orderBy('id').offset(offset).limit(1).executeTakeFirstOrThrow();
  }

  it('match their text on every row of the imported corpus', async () => {
    const rows = await ctx.t.db.selectFrom('jobs').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBeGreaterThan(1000);
    expect(await stale()).toBe(0);
  });

  it('are kept as they are when a write leaves their text alone (re-verification, missed crawls, status)', async () => {
    const before = await sql<{ id: string; v: string }>`SELECT id, title_tsv::text || search_tsv::text || description_tsv::text AS v FROM jobs ORDER BY id`.execute(ctx.t.db);
    await sql`UPDATE jobs SET last_verified_at = now(), missed_crawls = missed_crawls`.execute(ctx.t.db);
    const after = await sql<{ id: string; v: string }>`SELECT id, title_tsv::text || search_tsv::text || description_tsv::text AS v FROM jobs ORDER BY id`.execute(ctx.t.db);
    expect(after.rows).toEqual(before.rows);
    expect(await stale()).toBe(0);
  });

  it('follow a new title, company name, location and description, and the text filters with them', async () => {
    const row = await someServedRow(3);
    expect(await ids('title=zyxwquartermaster')).toEqual([]);
    await sql`UPDATE jobs SET title = 'Zyxwquartermaster', location = 'Qwvxtown', description_text = 'Operates the plovercraft fleet.' WHERE id = ${row.id}`.execute(ctx.t.db);
    expect(await ids('title=zyxwquartermaster')).toEqual([row.id]);
    expect(await ids('q=qwvxtown')).toEqual([row.id]);
    expect(await ids('description_contains=plovercraft')).toEqual([row.id]);
    const oldWord = row.title.toLowerCase().match(/[a-z]{5,}/)?.[0];
    if (oldWord) expect(await ids(`title=${oldWord}`)).not.toContain(row.id);

    const other = await someServedRow(7);
    await sql`UPDATE jobs SET company_name = 'Brumblewick Holdings' WHERE id = ${other.id}`.execute(ctx.t.db);
    expect(await ids('q=brumblewick')).toEqual([other.id]);
    expect(await stale()).toBe(0);
  });

  it('cannot be written to disagree with the text', async () => {
    const row = await someServedRow(11);
    await sql`UPDATE jobs SET title_tsv = to_tsvector('simple', 'forgedword'), search_tsv = to_tsvector('simple', 'forgedword'), description_tsv = to_tsvector('simple', 'forgedword') WHERE id = ${row.id}`.execute(ctx.t.db);
    expect(await ids('title=forgedword')).toEqual([]);
    expect(await ids('q=forgedword')).toEqual([]);
    expect(await ids('description_contains=forgedword')).toEqual([]);
    expect(await stale()).toBe(0);
  });
});
