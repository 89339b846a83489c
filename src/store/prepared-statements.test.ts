/**
 * Named statements and their plans (prepared-statements.ts, issue 22), read from PostgreSQL's own view
 * of the session (`pg_prepared_statements`): the first page of the default listing is planned once per
 * session, a filtered listing is still planned with its values at every execution, and a script of
 * several statements without parameters keeps running however often it is sent.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/helpers/database.ts';
import { DEFAULT_SCOPE, type JobFilter } from '../domain/listing-filter.ts';
import { connect } from './database.ts';
import type { CursorPosition } from '../domain/cursor.ts';
import { findJob, listJobs } from './job-queries.ts';
import type { DB } from './schema.ts';

/** The session's named listing statements (one connection: the pool's only session). */
async function listingStatements(db: Kysely<DB>) {
  const { rows } = await sql<{ statement: string; generic_plans: string; custom_plans: string }>`
    SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE ${'%from "jobs" as "j"%'}`.execute(db);
  return rows.map((r) => ({ statement: r.statement, generic: Number(r.generic_plans), custom: Number(r.custom_plans) }));
}

describe('named statements', () => {
  const t = useTestDatabase({ maxConnections: 1 });

  it('plan the first page of the default listing once per session, and a filtered page at every execution', async () => {
    for (let i = 0; i < 5; i++) await listJobs(t.db, {}, DEFAULT_SCOPE, { limit: 7 });
    for (let i = 0; i < 5; i++) await listJobs(t.db, { country: ['DE'] }, DEFAULT_SCOPE, { limit: 7 });
    const statements = await listingStatements(t.db);
    // The country condition; the select list names "j"."country" in both.
    const isFiltered = (s: { statement: string }) => s.statement.includes('"j"."country" in (');
    const unfiltered = statements.filter((s) => !isFiltered(s));
    const filtered = statements.filter(isFiltered);
    // Named from its second execution on (PROMOTE_AFTER): four executions of the named statement.
    expect(unfiltered).toHaveLength(1);
    expect(unfiltered[0]!.statement).toMatch(/limit 8$/);
    expect(unfiltered[0]).toMatchObject({ custom: 0 });
    expect(unfiltered[0]!.generic).toBeGreaterThanOrEqual(1);
    expect(filtered).toHaveLength(1);
    expect(filtered[0]).toMatchObject({ generic: 0, custom: 4 });
  });

  it('send a script of several statements without parameters unnamed, however often', async () => {
    for (let i = 0; i < 4; i++) {
      await sql.raw('SELECT 1; SELECT 2').execute(t.db);
    }
    const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM pg_prepared_statements WHERE statement LIKE ${'SELECT 1;%'}`.execute(t.db);
    expect(Number(rows[0]!.n)).toBe(0);
  });
});

describe('cursor pages of a listing without filters', () => {
  const t = useTestDatabase({ corpus: true, maxConnections: 1 });
  let generic: Kysely<DB>;
  beforeAll(() => {
    generic = connect(t.url, { statementTimeoutMs: 0, maxConnections: 1, applicationName: 'jobledger-test', planCacheMode: 'force_generic_plan' }).db;
  });
  afterAll(async () => {
    await generic.destroy();
  });

  /**
   * The ids of the first `pages` pages of 5, each page after the previous one's cursor position, with
   * `genericDb` offered to `listJobs` (omitted: every page planned with its values, as before).
   */
  async function walk(filter: JobFilter, pages: number, genericDb?: Kysely<DB>): Promise<string[]> {
    const ids: string[] = [];
    let after: CursorPosition | undefined;
    for (let i = 0; i < pages; i++) {
      const page = await listJobs(t.db, filter, DEFAULT_SCOPE, { limit: 5, after }, genericDb);
      ids.push(...page.rows.map((r) => r.id));
      after = page.next;
      if (!after) break;
    }
    return ids;
  }

  it('run on the generic sessions with one plan kept, and page through the rows the per-execution plans give', async () => {
    const viaGeneric = await walk({}, 6, generic);
    expect(viaGeneric).toHaveLength(30);
    expect(new Set(viaGeneric).size).toBe(30);
    // The same walk planned with its values at every execution, as before.
    expect(viaGeneric).toEqual(await walk({}, 6));
    // Five cursor pages on the generic session: named from the second on, then only its generic plan.
    const onGeneric = await listingStatements(generic);
    expect(onGeneric).toHaveLength(1);
    expect(onGeneric[0]).toMatchObject({ custom: 0, generic: 4 });
    // Its only parameters are the cursor position (sort key and id).
    expect(onGeneric[0]!.statement).toContain('$2');
    expect(onGeneric[0]!.statement).not.toContain('$3');
  });

  it('keep one generic plan for the single-row lookup by id or slug', async () => {
    const [row] = (await listJobs(t.db, {}, DEFAULT_SCOPE, { limit: 1 })).rows;
    for (let i = 0; i < 5; i++) expect((await findJob(generic, row!.id, { includeClosed: false }))?.id).toBe(row!.id);
    for (let i = 0; i < 5; i++) expect((await findJob(generic, row!.slug, { includeClosed: false }))?.id).toBe(row!.id);
    const lookups = (await listingStatements(generic)).filter((s) => /where "j"\."(id|slug)" = \$1/.test(s.statement));
    expect(lookups).toHaveLength(2);
    for (const lookup of lookups) expect(lookup).toMatchObject({ custom: 0, generic: 4 });
  });

  it('keep a filtered cursor page on the sessions that plan it with its values', async () => {
    const before = (await listingStatements(generic)).length;
    const ids = await walk({ country: ['US'] }, 4, generic);
    expect(ids.length).toBeGreaterThan(5);
    expect(await listingStatements(generic)).toHaveLength(before);
    const filtered = (await listingStatements(t.db)).filter((s) => s.statement.includes('"j"."country" in ('));
    expect(filtered.length).toBeGreaterThan(0);
    for (const s of filtered) expect(s.generic).toBe(0);
  });
});
