/**
 * The listing's compiled-statement cache (issue 22): what a page runs from the cache is the statement
 * a fresh build of listJobsQueries compiles for the same filter, scope and cursor position, on the
 * first request of a shape and on every later one, whatever the cursor.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { CursorPosition } from '../domain/cursor.ts';
import { DEFAULT_SCOPE, type JobFilter, type ServingScope } from '../domain/listing-filter.ts';
import { compiledListingQueries, listJobsQueries, type PageRequest, type ResolvedCompanies } from './job-queries.ts';
import type { DB } from './schema.ts';

// Compiling needs the dialect only; no statement is sent.
const pool = new pg.Pool({ max: 1 });
const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
afterAll(() => db.destroy());

function fresh(filter: JobFilter, scope: ServingScope, page: PageRequest, companies: ResolvedCompanies) {
  const q = listJobsQueries(db, filter, scope, page, companies);
  return (q.strategy === 'direct' ? [q.direct] : [q.window, q.complete]).map((c) => c.compile()).map((c) => ({ sql: c.sql, parameters: c.parameters }));
}

const cursors: Array<CursorPosition | undefined> = [
  undefined,
  { key: '2026-11-20 10:00:00+00', id: '6ed9a739-1d6d-41fb-88c0-fd93db5aab60' },
  { key: '-infinity', id: 'ef830378-42a3-47a1-8ac4-bac3fc5ebb73' },
];
const WIDE: ServingScope = { status: 'any', qualityAll: true, posterTypes: ['staffing'] };
const cases: Array<[string, JobFilter, ServingScope, ResolvedCompanies]> = [
  ['no filter', {}, DEFAULT_SCOPE, {}],
  ['structured filters', { country: ['DE', 'US'], category: ['Engineering', 'uncategorised'], remote: ['remote', 'not_stated'], minSalary: 50_000, postedAfter: new Date('2026-09-01T00:00:00Z') }, DEFAULT_SCOPE, {}],
  ['full text (guarded)', { title: 'engineer', titleExclude: 'intern' }, DEFAULT_SCOPE, {}],
  ['resolved companies', { company: ['acme'] }, DEFAULT_SCOPE, { include: ['0b7e8f0c-2d1f-4c61-9d7e-4b1c8a6b9f00'] }],
  ['a wider scope', { country: ['FR'] }, WIDE, {}],
  ['a value that looks like a placeholder', { title: '\u0000after-key' }, DEFAULT_SCOPE, {}],
];

describe('compiled listing statements', () => {
  for (const [name, filter, scope, companies] of cases) {
    it(`${name}: the cached statements equal a fresh compilation at every cursor`, () => {
      for (const includeDescription of [false, true]) {
        // Twice over: the first round compiles each shape, the second reads it from the cache.
        for (let round = 0; round < 2; round++) {
          for (const after of cursors) {
            const page = { limit: 50, after, includeDescription };
            const cached = compiledListingQueries(db, filter, scope, page, companies).map((c) => ({ sql: c.sql, parameters: c.parameters }));
            expect(cached).toEqual(fresh(filter, scope, page, companies));
          }
        }
      }
    });
  }

  it('joins companies only for pages read as columns: a page of stored lines names no company column', () => {
    for (const [, filter, scope, companies] of cases) {
      for (const after of cursors) {
        const columns = compiledListingQueries(db, filter, scope, { limit: 50, after }, companies);
        const lines = compiledListingQueries(db, filter, scope, { limit: 50, after, servedLines: true }, companies);
        expect(columns.every((c) => c.sql.includes('"companies" as "c"'))).toBe(true);
        for (const c of lines) {
          expect(c.sql).not.toContain('companies');
          expect(c.sql).not.toMatch(/"c"\./);
        }
      }
    }
  });

  it('keeps shapes apart: another page size or filter value is another statement', () => {
    const a = compiledListingQueries(db, { country: ['DE'] }, DEFAULT_SCOPE, { limit: 50 }, {});
    const b = compiledListingQueries(db, { country: ['FR'] }, DEFAULT_SCOPE, { limit: 50 }, {});
    const c = compiledListingQueries(db, { country: ['DE'] }, DEFAULT_SCOPE, { limit: 20 }, {});
    expect(a[0]!.parameters).toContain('DE');
    expect(b[0]!.parameters).toContain('FR');
    // The page size is written into the statement (job-queries.ts: a parameterless first page is planned once).
    expect(c[0]!.sql).toMatch(/limit 21$/);
    expect(a[0]!.sql).toMatch(/limit 51$/);
  });
});
