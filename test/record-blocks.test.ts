/**
 * The record meter's blocks across real API processes (issue 22, docs/metering.md "Blocks of
 * records"): three `jobledger serve` processes on one database, blocks of at most 200 records.
 * Requests are served from a process's block without a database write; the processes together serve
 * exactly the allowance; a process killed with SIGKILL while it holds a block loses at most that block
 * (counted as used, never served), nothing is over-served, and a new process serves the rest; the
 * last block before the end goes back within seconds, so its records are not stranded. A key without
 * an allowance is counted in memory and written within seconds and at shutdown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, type CreatedKey } from '../src/access/api-keys.ts';
import { bearer, buildTestApp } from './helpers/app.ts';
import { startCli, type CliProcess } from './helpers/cli-process.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

const BLOCK = 200;

interface Api {
  cli: CliProcess;
  base: string;
}

async function startApi(databaseUrl: string): Promise<Api> {
  const port = await freePort();
  const cli = startCli(['serve', '--no-worker'], {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    JOBLEDGER_REQUEST_COUNTERS: 'memory',
    JOBLEDGER_RECORD_BLOCK: String(BLOCK),
    // No block expires during the test: what a killed process loses is exactly what it held.
    JOBLEDGER_RECORD_BLOCK_SECONDS: '3600',
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (!(await fetch(`${base}/health`).then((r) => r.ok, () => false))) {
    if (cli.child.exitCode !== null) throw new Error(`serve exited early:\n${cli.output()}`);
    if (Date.now() > deadline) throw new Error(`serve did not come up:\n${cli.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { cli, base };
}

interface Answer {
  status: number;
  rows: number;
  used: number;
  remaining: number;
}

async function page(api: Api, key: CreatedKey, limit: number): Promise<Answer> {
  const res = await fetch(`${api.base}/v1/jobs?limit=${limit}`, { headers: { authorization: `Bearer ${key.secret}` } });
  const body = (await res.json()) as { data?: unknown[]; error?: string };
  if (res.status !== 200) expect(body.error).toBe('record_quota_exhausted');
  return { status: res.status, rows: body.data?.length ?? 0, used: Number(res.headers.get('x-ratelimit-records-used')), remaining: Number(res.headers.get('x-ratelimit-records-remaining')) };
}

describe('record blocks across real API processes', () => {
  let t: TestDatabase;
  let apis: Api[] = [];
  const month = `${new Date().toISOString().slice(0, 7)}-01`;
  const durableUsed = async (key: CreatedKey) =>
    (await t.db.selectFrom('record_usage').select('used').where('api_key_id', '=', key.id).where('period_start', '=', month).executeTakeFirst())?.used ?? 0;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    await t.db
      .insertInto('plans')
      .values([
        { id: 'blocks', label: 'Blocks', price_cents: 100, records_per_month: 3000, requests_per_day: 100_000, requests_per_minute: 10_000, max_page_size: 200, purchasable: false },
        { id: 'endgame', label: 'End game', price_cents: 100, records_per_month: 170, requests_per_day: 100_000, requests_per_minute: 10_000, max_page_size: 200, purchasable: false },
        { id: 'crash', label: 'Crash', price_cents: 100, records_per_month: 2000, requests_per_day: 100_000, requests_per_minute: 10_000, max_page_size: 200, purchasable: false },
      ])
      .execute();
    apis = await Promise.all([0, 1, 2].map(() => startApi(t.url)));
  }, 300_000);
  afterAll(async () => {
    for (const api of apis) if (api.cli.child.exitCode === null && api.cli.child.signalCode === null) api.cli.child.kill('SIGTERM');
    await Promise.all(apis.map((a) => a.cli.exited));
    await t?.drop();
  });

  it('serves from a block without a write per request, and two processes serve exactly the allowance', async () => {
    const key = await createApiKey(t.db, { planId: 'blocks' });
    // Three pages, one write: the durable meter holds the block, the headers the records served.
    const first = [await page(apis[0]!, key, 50), await page(apis[0]!, key, 50), await page(apis[0]!, key, 50)];
    expect(first.map((a) => [a.status, a.rows, a.used, a.remaining])).toEqual([
      [200, 50, 50, 2950],
      [200, 50, 100, 2900],
      [200, 50, 150, 2850],
    ]);
    expect(await durableUsed(key)).toBe(BLOCK);

    // Concurrent pages through both processes until both refuse: exactly the allowance is served. (A
    // block given back near the end may be on its way to the durable meter when both refuse once.)
    let served = 150;
    for (let round = 0; ; round++) {
      expect(round, 'the allowance never ran out').toBeLessThan(100);
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => page(apis[i % 2]!, key, 50)));
      for (const a of answers) {
        expect(a.used).toBeLessThanOrEqual(3000);
        if (a.status === 402) expect(a.remaining).toBe(0);
      }
      served += answers.reduce((sum, a) => sum + a.rows, 0);
      expect(served).toBeLessThanOrEqual(3000);
      if (answers.every((a) => a.status === 402)) {
        if (served === 3000) break;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    expect(await durableUsed(key)).toBe(3000);
  }, 120_000);

  it('gives the last block back within seconds, so another process serves its records', async () => {
    // 170 records: the first block is 21 (an eighth); 149 left after it are too few for another.
    const key = await createApiKey(t.db, { planId: 'endgame' });
    const [a, b] = apis as [Api, Api];
    const first = await page(a, key, 10);
    expect([first.rows, first.used, first.remaining]).toEqual([10, 10, 160]); // a holds 11 more
    // The block was taken (21), unless a's second-long hold already ended (10).
    expect([21, 10]).toContain(await durableUsed(key));
    let served = first.rows;
    let answer: Answer;
    do {
      answer = await page(b, key, 50);
      served += answer.rows;
    } while (answer.status === 200);
    expect(answer.remaining).toBe(0);
    expect(served).toBeLessThanOrEqual(170);
    // Unless they came back during the drain already, a's 11 records come back within seconds
    // (its block would otherwise live the hour this test sets).
    const started = Date.now();
    while (served < 170) {
      expect(Date.now() - started, 'the block was not given back').toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 200));
      served += (await page(b, key, 50)).rows;
    }
    expect(served).toBe(170);
    expect((await page(b, key, 50)).status).toBe(402);
    expect(await durableUsed(key)).toBe(170);
  }, 60_000);

  it('counts the records of a key without an allowance in memory, writes them within seconds and at shutdown', async () => {
    const key = await createApiKey(t.db, { planId: 'scale', countryLock: 'DE' });
    const app = await buildTestApp(t);
    const get = async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/jobs?limit=5', headers: bearer(key) });
      expect(res.headers['x-ratelimit-records-remaining']).toBe('unlimited');
      return Number(res.headers['x-ratelimit-records-used']);
    };
    try {
      expect([await get(), await get(), await get()]).toEqual([5, 10, 15]);
      const started = Date.now();
      while ((await durableUsed(key)) !== 15) {
        expect(Date.now() - started, 'the count was not written').toBeLessThan(5000);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await get()).toBe(20);
    } finally {
      await app.close();
    }
    expect(await durableUsed(key)).toBe(20);
  }, 60_000);

  it('loses at most the block a killed process held, never over-serves, and a new process serves the rest', async () => {
    const key = await createApiKey(t.db, { planId: 'crash' });
    const [a, b, c] = apis as [Api, Api, Api];
    let served = 0;
    for (let i = 0; i < 3; i++) served += (await page(a, key, 50)).rows;
    expect(await durableUsed(key)).toBe(BLOCK); // a holds 50 unspent
    const fromB = await page(b, key, 30);
    served += fromB.rows;
    // b took a block of its own; it counts a's unspent 50 as used (it cannot know better).
    expect(await durableUsed(key)).toBe(2 * BLOCK);
    expect(fromB.used).toBe(2 * BLOCK - (BLOCK - 30));

    // A clean shutdown gives the unspent rest back; SIGKILL cannot.
    b.cli.child.kill('SIGTERM');
    expect((await b.cli.exited).code).toBe(0);
    expect(await durableUsed(key)).toBe(150 + 30 + 50);
    a.cli.child.kill('SIGKILL');
    expect((await a.cli.exited).signal).toBe('SIGKILL');
    expect(await durableUsed(key)).toBe(150 + 30 + 50);

    // A process that never served the key serves what is left, then 402.
    let last: Answer;
    for (let i = 0; ; i++) {
      expect(i, 'the allowance never ran out').toBeLessThan(100);
      last = await page(c, key, 50);
      served += last.rows;
      if (last.status === 402) break;
      expect(last.used).toBeLessThanOrEqual(2000);
    }
    expect(last.remaining).toBe(0);
    expect(await durableUsed(key)).toBe(2000);
    expect(served).toBeLessThanOrEqual(2000);
    const lost = 2000 - served;
    expect(lost).toBeLessThanOrEqual(BLOCK);
    expect(lost).toBe(50); // exactly the killed process's unspent block records
  }, 120_000);
});
