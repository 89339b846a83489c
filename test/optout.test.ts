/**
 * Verified employer opt-outs (spec: withheld kind optout_hidden): recorded by an operator with
 * `jobledger optout add`, they hide the employer's rows at once and on every later crawl; revoked,
 * the rows come back through a full recrawl. Real corpus, real PostgreSQL, the real CLI process.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { addOptout, listOptouts, OptoutInputError, revokeOptout } from '../src/store/optouts.ts';
import { bearer, useCorpusApp } from './helpers/app.ts';
import { replayPipeline } from './helpers/corpus.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/jobledger.js');

describe('employer opt-outs', () => {
  const ctx = useCorpusApp();

  const servedFor = async (company: string): Promise<Job[]> => {
    const res = await ctx.app.inject({ method: 'GET', url: `/v1/jobs?company=${company}&limit=200`, headers: bearer(ctx.key) });
    expect(res.statusCode).toBe(200);
    return res.json().data as Job[];
  };
  const populations = async () => {
    const rows = await ctx.t.db
      .selectFrom('jobs')
      .select((eb) => [
        eb.fn.countAll<string>().as('all'),
        eb.fn.countAll<string>().filterWhere((w) => w.and([w('status', '=', 'live'), w('withheld_kind', 'is', null)])).as('live'),
        eb.fn.countAll<string>().filterWhere((w) => w.and([w('status', '=', 'live'), w('withheld_kind', 'is not', null)])).as('withheld'),
        eb.fn.countAll<string>().filterWhere('status', '=', 'closed').as('closed'),
      ])
      .executeTakeFirstOrThrow();
    return { all: Number(rows.all), live: Number(rows.live), withheld: Number(rows.withheld), closed: Number(rows.closed) };
  };

  it('refuses input it cannot act on, with a message naming the problem', async () => {
    await expect(addOptout(ctx.t.db, { verifiedBy: 'x', verifiedAt: new Date() })).rejects.toThrow(OptoutInputError);
    await expect(addOptout(ctx.t.db, { domain: 'not a domain', verifiedBy: 'x', verifiedAt: new Date() })).rejects.toThrow(/not a domain/);
    await expect(addOptout(ctx.t.db, { companySlug: 'no-such-company', verifiedBy: 'x', verifiedAt: new Date() })).rejects.toThrow(/no company with slug/);
  });

  it('hides every row of the employer at once (CLI), withdraws the served ones, and keeps the populations reconciled', async () => {
    const before = await servedFor('ramp');
    expect(before.length).toBeGreaterThan(10);
    const counts = await populations();
    const { stdout } = await run(process.execPath, [BIN, 'optout', 'add', '--domain', 'https://www.ramp.com/careers', '--verified-by', 'reply from people@ramp.com (test)'], {
      env: { ...process.env, LOG_LEVEL: 'warn', CI: 'true', DATABASE_URL: ctx.t.url },
      timeout: 60_000,
    });
    expect(stdout).toMatch(new RegExp(`rows hidden \\(${before.length} were served and are withdrawn\\)`));
    expect(await servedFor('ramp')).toEqual([]);
    const hidden = await ctx.t.db.selectFrom('jobs').innerJoin('companies', 'companies.id', 'jobs.company_id').select(['withheld_kind', 'quality_rule_id']).where('companies.domain', '=', 'ramp.com').execute();
    expect(new Set(hidden.map((r) => `${r.withheld_kind} ${r.quality_rule_id}`))).toEqual(new Set(['optout_hidden employer.opted_out']));
    const withdrawn = await ctx.t.db.selectFrom('change_events').select('job_id').where('change', '=', 'withdrawn').where('job_id', 'in', before.map((j) => j.id)).execute();
    expect(withdrawn).toHaveLength(before.length);
    const after = await populations();
    expect(after.all).toBe(counts.all);
    expect(after.live + after.withheld + after.closed).toBe(after.all);
    expect(after.withheld - counts.withheld).toBe(before.length);
    // A second opt-out for the same employer is refused.
    await expect(addOptout(ctx.t.db, { domain: 'ramp.com', verifiedBy: 'x', verifiedAt: new Date() })).rejects.toThrow(/already covers/);
  });

  it('keeps the rows hidden when the board is crawled again, and brings them back once revoked', async () => {
    const pipeline = await replayPipeline(ctx.t.db);
    try {
      const ramp = pipeline.targets.filter((target) => target.id === 'ashby:ramp');
      // Force a full answer: the gate, not a 304, must decide.
      await ctx.t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).where('id', '=', 'ashby:ramp').execute();
      const [first] = await pipeline.crawl(ramp);
      expect(first?.outcome).toBe('fetched');
      expect(await servedFor('ramp')).toEqual([]);

      const [active] = (await listOptouts(ctx.t.db)).filter((o) => o.domain === 'ramp.com' && o.revokedAt === null);
      const { targetsReset } = await revokeOptout(ctx.t.db, active!.id);
      expect(targetsReset).toBe(1);
      const [second] = await pipeline.crawl(ramp);
      expect(second?.outcome).toBe('fetched');
      const back = await servedFor('ramp');
      expect(back.length).toBeGreaterThan(10);
      const updated = await ctx.t.db.selectFrom('change_events').select('job_id').where('change', '=', 'updated').where('job_id', 'in', back.map((j) => j.id)).execute();
      expect(updated.length).toBe(back.length);
    } finally {
      await pipeline.close();
    }
  });
});
