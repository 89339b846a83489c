/**
 * Named statements and their plans (prepared-statements.ts, issue 22), read from PostgreSQL's own view
 * of the session (`pg_prepared_statements`): the first page of the default listing is planned once per
 * session, a filtered listing is still planned with its values at every execution, and a script of
 * several statements without parameters keeps running however often it is sent.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/helpers/database.ts';
import { DEFAULT_SCOPE } from '../domain/listing-filter.ts';
import { listJobs } from './job-queries.ts';

/** The session's named listing statements (one connection: the pool's only session). */
async function listingStatements(t: ReturnType<typeof useTestDatabase>) {
  const { rows } = await sql<{ statement: string; generic_plans: string; custom_plans: string }>`
    SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE ${'%from "jobs" as "j"%'}`.execute(t.db);
  return rows.map((r) => ({ statement: r.statement, generic: Number(r.generic_plans), custom: Number(r.custom_plans) }));
}

describe('named statements', () => {
  const t = useTestDatabase({ maxConnections: 1 });

  it('plan the first page of the default listing once per session, and a filtered page at every execution', async () => {
    for (let i = 0; i < 5; i++) await listJobs(t.db, {}, DEFAULT_SCOPE, { limit: 7 });
    for (let i = 0; i < 5; i++) await listJobs(t.db, { country: ['DE'] }, DEFAULT_SCOPE, { limit: 7 });
    const statements = await listingStatements(t);
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
