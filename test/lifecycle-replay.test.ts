/**
 * The ledger follows its sources over time (spec: States and transitions › Job status; Events), on
 * real data: board states derived from the recorded Ashby boards and USAJOBS announcements are
 * replayed through the loopback replay server, the real fetcher and connectors, enrichment, the
 * quality gate and the ledger; every transition, every event and every feed page is asserted, and a
 * client of the feeds stays exactly in sync with /v1/jobs.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { FIXTURES_DIR } from '../src/ingest/bundled-feeds.ts';
import { USAJOBS_REPLAY_PREFIX } from '../src/ingest/replay-server.ts';
import { sweepUpstreamClosures } from '../src/store/ledger.ts';
import type { CrawlTargetRow } from '../src/store/schema.ts';
import { allPages, bearer } from './helpers/app.ts';
import { outcomes, useReplayApp } from './helpers/corpus.ts';
import { ashbyPayload } from './helpers/postings.ts';

type Change = { change: string; id: string; changed_at: string; job?: Job };
type Closure = { id: string; closed_at: string; closed_reason: string };
type AshbyJob = Record<string, unknown> & { id: string; jobUrl: string };
type Announcement = Record<string, unknown> & { control_number: number | string; close_date: string };

const TIME_ZERO = '1970-01-01T00:00:00Z';
const USAJOBS_FILE = 'jobs_judicial_branch';

function usajobsPayload(): Announcement[] {
  return JSON.parse(zlib.gunzipSync(readFileSync(path.join(FIXTURES_DIR, 'usajobs', `${USAJOBS_FILE}.json.gz`))).toString('utf8'));
}

function isoDate(daysFromToday: number): string {
  return new Date(Date.now() + daysFromToday * 86_400_000).toISOString().slice(0, 10);
}

describe('replaying real board states through the real connectors', () => {
  let targets: Record<'ramp' | 'cursor' | 'n8n' | 'usajobs', CrawlTargetRow>;
  let changesCursor = TIME_ZERO;
  let expiredCursor = TIME_ZERO;

  const ramp = ashbyPayload('ramp');
  const n8n = ashbyPayload('n8n');
  const rampJobs = ramp.jobs as AshbyJob[];
  const n8nJobs = n8n.jobs as AshbyJob[];
  // The postings this replay moves around (real ids from the recorded boards).
  const [removedA, removedB, described, salaried, relinked] = rampJobs.slice(0, 5) as [AshbyJob, AshbyJob, AshbyJob, AshbyJob, AshbyJob];
  const dead = n8nJobs[0]!;
  const boardPath = (board: string) => `/posting-api/job-board/${encodeURIComponent(board)}`;
  const usajobsPath = `${USAJOBS_REPLAY_PREFIX}/${USAJOBS_FILE}.json`;

  /** Ramp as it looks from step 1 on: two postings gone, one description and one salary edited, one link moved to a job board. */
  function rampEdited() {
    return {
      ...ramp,
      jobs: rampJobs
        .filter((j) => j !== removedA && j !== removedB)
        .map((j) => {
          if (j === described) return { ...j, descriptionHtml: `${String(j.descriptionHtml)}<p>We added a second interview round.</p>`, descriptionPlain: `${String(j.descriptionPlain)}\nWe added a second interview round.` };
          if (j === salaried) {
            const comp = j.compensation as { summaryComponents: Array<Record<string, unknown>> };
            return {
              ...j,
              compensation: {
                ...comp,
                summaryComponents: comp.summaryComponents.map((c) => (c.compensationType === 'Salary' ? { ...c, minValue: Number(c.minValue) + 5000 } : c)),
              },
            };
          }
          if (j === relinked) return { ...j, applyUrl: 'https://www.linkedin.com/jobs/view/4012345678' };
          return j;
        }),
    };
  }

  const ctx = useReplayApp({ plan: 'growth', fetch: { retries: 0 }, lifecycle: { absence: { crawls: 2, minSeconds: 0 }, probe: true } });
  beforeAll(() => {
    const byId = (id: string) => ctx.pipeline.targets.find((x) => x.id === id)!;
    targets = { ramp: byId('ashby:ramp'), cursor: byId('ashby:cursor'), n8n: byId('ashby:n8n'), usajobs: byId(`usajobs:${USAJOBS_FILE}`) };
  });

  async function get<T>(url: string, status = 200): Promise<T> {
    const res = await ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) });
    expect(res.statusCode, `${url}: ${res.body}`).toBe(status);
    return res.json() as T;
  }

  /** Follow /v1/changes from `since` to the end with small pages; checks the empty page echoes its cursor. */
  async function follow(since: string): Promise<{ items: Change[]; cursor: string }> {
    const items: Change[] = [];
    let cursor = since;
    for (;;) {
      const page = await get<{ count: number; data: Change[]; next_since: string }>(`/v1/changes?since=${encodeURIComponent(cursor)}&limit=37`);
      expect(page.count).toBe(page.data.length);
      if (page.count === 0) {
        expect(page.next_since).toBe(cursor);
        return { items, cursor };
      }
      const last = page.data[page.data.length - 1]!;
      expect(page.next_since).toBe(`${last.changed_at}|${last.id}`);
      items.push(...page.data);
      cursor = page.next_since;
    }
  }

  /** The changes since the previous call, as `change id` strings. */
  async function newChanges(): Promise<string[]> {
    const { items, cursor } = await follow(changesCursor);
    changesCursor = cursor;
    return items.map((i) => `${i.change} ${i.id}`).sort();
  }

  /** The closures since the previous call, following /v1/jobs/expired with small pages. */
  async function newClosures(): Promise<Closure[]> {
    const out: Closure[] = [];
    for (;;) {
      const page = await get<{ count: number; data: Closure[]; next_since: string }>(`/v1/jobs/expired?since=${encodeURIComponent(expiredCursor)}&limit=250`);
      if (page.count === 0) {
        expect(page.next_since).toBe(expiredCursor);
        return out;
      }
      for (const c of page.data) expect(`${c.closed_at}|${c.id}` > expiredCursor || expiredCursor === TIME_ZERO).toBe(true);
      out.push(...page.data);
      expiredCursor = page.next_since;
    }
  }

  async function row(providerId: string, sourcePostingId: string | number) {
    return ctx.t.db.selectFrom('jobs').selectAll().where('provider_id', '=', providerId).where('source_posting_id', '=', String(sourcePostingId)).executeTakeFirstOrThrow();
  }

  /** ledger_rows = live + withheld + closed, with live exactly what /v1/jobs serves. */
  async function reconcile() {
    const counts = await ctx.t.db
      .selectFrom('jobs')
      .select((eb) => [
        eb.fn.countAll<number>().as('ledger_rows'),
        eb.fn.countAll<number>().filterWhere('status', '=', 'live').filterWhere('withheld_kind', 'is', null).as('live'),
        eb.fn.countAll<number>().filterWhere('status', '=', 'live').filterWhere('withheld_kind', 'is not', null).as('withheld'),
        eb.fn.countAll<number>().filterWhere('status', '=', 'closed').as('closed'),
      ])
      .executeTakeFirstOrThrow();
    expect(counts.ledger_rows).toBe(counts.live + counts.withheld + counts.closed);
    expect(counts.ledger_rows).toBeGreaterThan(0);
    expect((await servedByApi()).length).toBe(counts.live);
    return counts;
  }

  function servedByApi(): Promise<Job[]> {
    return allPages((url) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) }), '/v1/jobs?limit=200');
  }

  async function snapshot(targetId: string) {
    return ctx.t.db.selectFrom('jobs').select(['id', 'status', 'closed_reason', 'content_hash', 'withheld_kind', 'missed_crawls']).where('target_id', '=', targetId).orderBy('id').execute();
  }

  it('step 0: the recorded boards enter the ledger', async () => {
    const reports = await ctx.pipeline.crawl(Object.values(targets));
    expect(outcomes(reports)).toEqual(['fetched', 'fetched', 'fetched', 'fetched']);

    const served = await ctx.t.db.selectFrom('jobs').select('id').where('served', '=', true).execute();
    expect(await newChanges()).toEqual(served.map((r) => `created ${r.id}`).sort());
    // Announcements whose close date had passed entered closed (no event: nobody was ever served them),
    // and the closure feed lists every closed row once.
    const closed = await ctx.t.db.selectFrom('jobs').select(['id', 'closed_reason', 'upstream_expired_at', 'upstream_closes_at']).where('status', '=', 'closed').execute();
    expect(closed.length).toBeGreaterThan(100);
    expect(closed.every((r) => r.closed_reason === 'expired_upstream' && r.upstream_expired_at!.getTime() === r.upstream_closes_at!.getTime())).toBe(true);
    const closures = await newClosures();
    expect(closures.map((c) => c.id).sort()).toEqual(closed.map((r) => r.id).sort());
    expect(new Set(closures.map((c) => c.id)).size).toBe(closures.length);
    await reconcile();
  });

  it('step 1: postings vanish, a description and a salary change, a link turns to a job board, a posting page answers 404', async () => {
    ctx.pipeline.replay.override(boardPath('ramp'), { json: rampEdited() });
    ctx.pipeline.replay.override(boardPath('n8n'), { json: { ...n8n, jobs: n8nJobs.slice(1) } });
    ctx.pipeline.replay.override(ctx.pipeline.replay.pagePath(dead.jobUrl), { status: 404, body: 'Not found' });
    const before = new Date();
    const reports = await ctx.pipeline.crawl([targets.ramp, targets.n8n]);
    expect(outcomes(reports)).toEqual(['fetched', 'fetched']);

    const [a, b, d, s, l, x] = await Promise.all([removedA, removedB, described, salaried, relinked].map((j) => row('ashby', j.id)).concat(row('ashby', dead.id)));
    // Gone from a good crawl once, pages still up: still live, one missed crawl.
    for (const r of [a!, b!]) expect([r.status, r.missed_crawls, r.served]).toEqual(['live', 1, true]);
    // Content changes are updates; the description and the salary are what the source now says.
    expect(d!.description_html).toContain('second interview round');
    expect(s!.salary_min).toBe(Number((salaried.compensation as { summaryComponents: Array<{ compensationType: string; minValue: number }> }).summaryComponents.find((c) => c.compensationType === 'Salary')!.minValue) + 5000);
    // A link to a job board is no longer stood behind: withheld, same id.
    expect([l!.status, l!.withheld_kind, l!.quality_rule_id, l!.served]).toEqual(['live', 'quality_removed', 'apply_url.job_board', false]);
    // The posting's own page answered 404: proved dead upstream.
    expect([x!.status, x!.closed_reason]).toEqual(['closed', 'expired_upstream']);
    expect(x!.upstream_expired_at!.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1);

    expect(await newChanges()).toEqual([`updated ${d!.id}`, `updated ${s!.id}`, `withdrawn ${l!.id}`, `delisted ${x!.id}`].sort());
    const closures = await newClosures();
    expect(closures).toEqual([{ id: x!.id, closed_at: x!.closed_at!.toISOString(), closed_reason: 'expired_upstream' }]);
    await get(`/v1/jobs/${l!.id}`, 404);
    await get(`/v1/jobs/${x!.id}`, 404);
    const shown = await get<{ data: Job }>(`/v1/jobs/${x!.id}?include_closed=true`);
    expect(shown.data).toMatchObject({ id: x!.id, status: 'closed', closed_reason: 'expired_upstream', closed_at: x!.closed_at!.toISOString(), upstream_expired_at: x!.upstream_expired_at!.toISOString() });
    await reconcile();
  });

  it('step 2: a failed board closes nothing; a second good crawl without a posting closes it as not_seen', async () => {
    const cursorBefore = await snapshot(targets.cursor.id);
    ctx.pipeline.replay.override(boardPath('cursor'), { status: 500, body: '{"error":"internal"}', headers: { 'content-type': 'application/json' } });
    const reports = await ctx.pipeline.crawl([targets.ramp, targets.cursor]);
    expect(Object.fromEntries(reports.map((r) => [r.targetId, r.outcome]))).toEqual({ [targets.ramp.id]: 'fetched', [targets.cursor.id]: 'failed' });
    expect(await snapshot(targets.cursor.id)).toEqual(cursorBefore);

    const [a, b] = await Promise.all([row('ashby', removedA.id), row('ashby', removedB.id)]);
    for (const r of [a, b]) expect([r.status, r.closed_reason, r.upstream_expired_at]).toEqual(['closed', 'not_seen', null]);
    expect(await newChanges()).toEqual([`delisted ${a.id}`, `delisted ${b.id}`].sort());
    expect((await newClosures()).map((c) => `${c.closed_reason} ${c.id}`).sort()).toEqual([`not_seen ${a.id}`, `not_seen ${b.id}`].sort());
    const closedPage = await get<{ data: Job[] }>(`/v1/jobs/closed?closed_reason=not_seen`);
    expect(closedPage.data.map((j) => j.id).sort()).toEqual([a.id, b.id].sort());

    // The board recovers: its recorded payload answers 304 to the stored validators; nothing changes.
    ctx.pipeline.replay.override(boardPath('cursor'), null);
    const [recovered] = await ctx.pipeline.crawl([targets.cursor]);
    expect(recovered!.outcome).toBe('not_modified');
    expect(await snapshot(targets.cursor.id)).toEqual(cursorBefore);
    expect(await newChanges()).toEqual([]);
    await reconcile();
  });

  it('step 3: closed postings reappear (same id, updated), a fixed link comes back, edits are reverted', async () => {
    ctx.pipeline.replay.override(boardPath('ramp'), null);
    const [report] = await ctx.pipeline.crawl([targets.ramp]);
    expect(report!.outcome).toBe('fetched');
    const rows = await Promise.all([removedA, removedB, described, salaried, relinked].map((j) => row('ashby', j.id)));
    for (const r of rows) expect([r.status, r.closed_at, r.closed_reason, r.withheld_kind, r.missed_crawls]).toEqual(['live', null, null, null, 0]);
    expect(await newChanges()).toEqual(rows.map((r) => `updated ${r.id}`).sort());
    // Reopened rows leave the closed set; the closure feed has nothing new.
    expect(await newClosures()).toEqual([]);
    expect((await get<{ data: Job[] }>(`/v1/jobs/closed?closed_reason=not_seen`)).data).toEqual([]);
    await reconcile();
  });

  it('step 4: USAJOBS close dates pass, are cut short and are extended', async () => {
    const announcements = usajobsPayload();
    const closedRows = await ctx.t.db.selectFrom('jobs').select(['source_posting_id']).where('target_id', '=', targets.usajobs.id).where('status', '=', 'closed').orderBy('source_posting_id').execute();
    const [extendedId, shortenedId] = [closedRows[0]!.source_posting_id, closedRows[1]!.source_posting_id];
    // The agency extends two closed announcements, to 3 and to 20 days from now.
    const edited = (overrides: Record<string, string>) =>
      announcements.map((a) => (overrides[String(a.control_number)] ? { ...a, close_date: overrides[String(a.control_number)]! } : a));
    ctx.pipeline.replay.override(usajobsPath, { json: edited({ [extendedId]: isoDate(3), [shortenedId]: isoDate(20) }) });
    await ctx.pipeline.crawl([targets.usajobs]);
    const [extended, shortened] = await Promise.all([row('usajobs', extendedId), row('usajobs', shortenedId)]);
    for (const r of [extended, shortened]) expect([r.status, r.served, r.upstream_expired_at]).toEqual(['live', true, null]);
    expect(await newChanges()).toEqual([`updated ${extended.id}`, `updated ${shortened.id}`].sort());

    // Three days later the first close date has passed: the sweep closes it without waiting for a crawl
    // (a clock we cannot wait for is simulated by the instant given to the sweep).
    const later = new Date(extended.upstream_closes_at!.getTime() + 1000);
    const dueNow = await ctx.t.db.selectFrom('jobs').select(['id', 'served']).where('status', '=', 'live').where('upstream_closes_at', '<=', later).execute();
    expect(dueNow.map((r) => r.id)).toContain(extended.id);
    expect(await sweepUpstreamClosures(ctx.t.db, later)).toBe(dueNow.length);
    const swept = await row('usajobs', extendedId);
    expect([swept.status, swept.closed_reason, swept.upstream_expired_at!.getTime()]).toEqual(['closed', 'expired_upstream', extended.upstream_closes_at!.getTime()]);
    expect((await row('usajobs', shortenedId)).status).toBe('live');
    expect(await newChanges()).toEqual(dueNow.filter((r) => r.served).map((r) => `delisted ${r.id}`).sort());
    expect((await newClosures()).map((c) => c.id).sort()).toEqual(dueNow.map((r) => r.id).sort());

    // Still on that later day, the agency cuts the other announcement short: its close date was
    // yesterday. The crawl closes it; the announcements the sweep closed stay closed.
    ctx.pipeline.replay.override(usajobsPath, { json: edited({ [extendedId]: isoDate(3), [shortenedId]: isoDate(-1) }) });
    ctx.pipeline.deps.now = () => new Date(later.getTime() + 60_000);
    try {
      await ctx.pipeline.crawl([targets.usajobs]);
    } finally {
      ctx.pipeline.deps.now = undefined;
    }
    const cut = await row('usajobs', shortenedId);
    expect([cut.status, cut.closed_reason, cut.upstream_expired_at!.toISOString()]).toEqual(['closed', 'expired_upstream', `${isoDate(-1)}T23:59:59.000Z`]);
    expect(await newChanges()).toEqual([`delisted ${cut.id}`]);
    expect(await newClosures()).toEqual([{ id: cut.id, closed_at: cut.closed_at!.toISOString(), closed_reason: 'expired_upstream' }]);
    ctx.pipeline.replay.override(usajobsPath, null);
    await reconcile();
  });

  it('a client that starts the change feed at time zero reconstructs exactly the live set /v1/jobs serves', async () => {
    const { items } = await follow(TIME_ZERO);
    const copy = new Map<string, Job>();
    for (const item of items) {
      if (item.change === 'created' || item.change === 'updated') copy.set(item.id, item.job!);
      else copy.delete(item.id);
    }
    const served = await servedByApi();
    expect(copy.size).toBe(served.length);
    const content = ({ last_verified_at: _, ...rest }: Job) => rest;
    for (const job of served) expect(content(copy.get(job.id)!)).toEqual(content(job));
    // Each job appears once: its earlier changes are folded into its latest one.
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
  });
});
