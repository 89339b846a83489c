/**
 * Intermediary boards through the production path (issue 15 class 2): a venture firm's portfolio board,
 * served by the loopback replay server on Ashby's posting-API path, is crawled by the real fetcher,
 * connector, enrichment, board judgement and ledger. Its rows are not served as employer-direct,
 * `include_poster_type=jobboard` re-admits them, and the rule id and the board's evidence are kept.
 * The payload is written here, in Ashby's shape; it is test data, not a recording.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { loadFxRates } from '../src/enrich/fx.ts';
import { createConnectors } from '../src/ingest/connectors/registry.ts';
import { createFetcher } from '../src/ingest/fetcher.ts';
import { crawlTargets } from '../src/ingest/pipeline.ts';
import { startReplayServer, type ReplayServer } from '../src/ingest/replay-server.ts';
import { upsertTarget } from '../src/store/crawl-targets.ts';
import { bearer, useTestApp } from './helpers/app.ts';
import { outcomes, testFetchConfig } from './helpers/corpus.ts';

const BOARD = 'northstar-portfolio';
const ADVERTS: Array<[string, string]> = [
  ['Acme Robotics - Firmware Engineer', 'About Acme Robotics\nWe build warehouse robots in Lyon.'],
  ['Globex - Product Designer', 'At Globex, we design tools for accountants.'],
  ['Initech - Account Executive', 'Initech is a payments company serving 2,000 merchants.'],
  ['Hooli - Data Engineer', 'About Hooli\nHooli runs search for hospitals.'],
  ['Platform Associate', 'Help the Northstar platform team support founders.'],
];

function payload() {
  return {
    apiVersion: '1',
    jobs: ADVERTS.map(([title, text], i) => ({
      id: `00000000-0000-4000-8000-00000000000${i}`,
      title,
      department: 'Portfolio',
      location: 'Paris, France',
      isRemote: false,
      isListed: true,
      employmentType: 'FullTime',
      publishedAt: '2026-11-20T09:00:00.000+00:00',
      descriptionPlain: text,
      descriptionHtml: `<p>${text.replace('\n', '</p><p>')}</p>`,
      jobUrl: `https://jobs.ashbyhq.com/${BOARD}/${i}`,
      applyUrl: `https://jobs.ashbyhq.com/${BOARD}/${i}/application`,
    })),
  };
}

describe('a portfolio board crawled end to end', () => {
  const ctx = useTestApp();
  let dir: string;
  let replay: ReplayServer;
  let fetcher: ReturnType<typeof createFetcher>;
  let crawl: () => ReturnType<typeof crawlTargets>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'jobledger-portfolio-'));
    mkdirSync(join(dir, 'ashby'));
    writeFileSync(join(dir, 'ashby', `${BOARD}.json`), JSON.stringify(payload()));
    replay = await startReplayServer({ fixturesDir: dir, host: '127.0.0.1', port: 0 });
    fetcher = createFetcher(testFetchConfig());
    await upsertTarget(ctx.t.db, { providerId: 'ashby', board: BOARD, companyName: 'Northstar Ventures' });
    const deps = { db: ctx.t.db, connectors: createConnectors(replay.baseUrls), fetcher, fx: loadFxRates(), log: pino({ level: 'silent' }) };
    crawl = async () => crawlTargets(deps, await ctx.t.db.selectFrom('crawl_targets').selectAll().where('board', '=', BOARD).execute());
    expect(outcomes(await crawl())).toEqual(['fetched']);
  });
  afterAll(async () => {
    await fetcher?.close();
    await replay?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves none of its rows as employer-direct; include_poster_type=jobboard re-admits all of them', async () => {
    const plain = (await ctx.app.inject({ url: '/v1/jobs', headers: bearer(ctx.key) })).json() as { data: Job[] };
    expect(plain.data).toEqual([]);
    const readmitted = (await ctx.app.inject({ url: '/v1/jobs?include_poster_type=jobboard', headers: bearer(ctx.key) })).json() as { data: Job[] };
    expect(readmitted.data.map((j) => j.title).sort()).toEqual(ADVERTS.map(([t]) => t).sort());
  });

  it('keeps the rule id on every row and the board evidence on its target', async () => {
    const rows = await ctx.t.db.selectFrom('jobs').select(['poster_type', 'poster_rule_id']).execute();
    expect(rows).toHaveLength(ADVERTS.length);
    for (const r of rows) expect(r).toEqual({ poster_type: 'jobboard', poster_rule_id: 'poster.board_many_employers' });
    const target = await ctx.t.db.selectFrom('crawl_targets').select('poster_evidence').where('board', '=', BOARD).executeTakeFirstOrThrow();
    expect(target.poster_evidence).toMatchObject({
      ruleId: 'poster.board_many_employers',
      posterType: 'jobboard',
      postings: 5,
      matched: 4,
      hiringCompanies: ['Acme Robotics', 'Globex', 'Hooli', 'Initech'],
    });
  });

  it('is judged the same from its kept enrichment records when fetched in full again, and nothing changes', async () => {
    const before = await ctx.t.db.selectFrom('jobs').select(['id', 'poster_type', 'poster_rule_id', 'content_hash', 'served']).orderBy('id').execute();
    await ctx.t.db.updateTable('crawl_targets').set({ etag: null, last_modified: null }).where('board', '=', BOARD).execute();
    const [report] = await crawl();
    expect(report).toMatchObject({ outcome: 'fetched', enriched: 0, counts: { postings: ADVERTS.length, unchanged: ADVERTS.length, updated: 0 } });
    expect(await ctx.t.db.selectFrom('jobs').select(['id', 'poster_type', 'poster_rule_id', 'content_hash', 'served']).orderBy('id').execute()).toEqual(before);
    const target = await ctx.t.db.selectFrom('crawl_targets').select('poster_evidence').where('board', '=', BOARD).executeTakeFirstOrThrow();
    expect(target.poster_evidence).toMatchObject({ ruleId: 'poster.board_many_employers', matched: 4, hiringCompanies: ['Acme Robotics', 'Globex', 'Hooli', 'Initech'] });
  });
});
