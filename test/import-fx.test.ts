/**
 * `jobledger ingest` (the import command) converts salaries with the ECB rates the worker's scheduled
 * fetch stored in `fx_rates` (issue 15 class 5), not with the bundled history: the real command as a
 * process, a real Ashby board (ramp, recorded) served by the replay server on Ashby's path, the real
 * database.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES_DIR } from '../src/ingest/bundled-feeds.ts';
import { startReplayServer, type ReplayServer } from '../src/ingest/replay-server.ts';
import { saveFxDays } from '../src/store/fx-rates.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

const BIN = path.resolve(import.meta.dirname, '../bin/jobledger.js');
const run = promisify(execFile);

describe('jobledger ingest and the stored ECB rates', () => {
  let t: TestDatabase;
  let replay: ReplayServer;

  beforeAll(async () => {
    t = await createTestDatabase();
    replay = await startReplayServer({ fixturesDir: FIXTURES_DIR, host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await replay.close();
    await t.drop();
  });

  it('uses the newest stored rate of a currency (1 EUR = 2 USD here, not the bundled 1.1684)', async () => {
    await saveFxDays(t.db, [{ date: new Date().toISOString().slice(0, 10), unitsPerEur: { USD: 2 } }], 'http://127.0.0.1/eurofxref-daily.xml', new Date());
    const env = { ...process.env, DATABASE_URL: t.url, JOBLEDGER_ASHBY_BASE_URL: replay.baseUrls.ashby!, JOBLEDGER_FETCH_ALLOW: '127.0.0.1/32', JOBLEDGER_FETCH_RETRIES: '0' };
    await run(process.execPath, [BIN, 'targets', 'add', '--provider', 'ashby', '--board', 'ramp', '--company', 'Ramp'], { env });
    await run(process.execPath, [BIN, 'ingest'], { env, timeout: 120_000 });
    // ramp, Customer Experience Agent: 48,000-70,000 USD a year (structured).
    const job = await t.db
      .selectFrom('jobs')
      .select(['salary_min_annual_eur', 'salary_max_annual_eur'])
      .where('provider_id', '=', 'ashby')
      .where('source_posting_id', '=', 'd64609dd-c391-45a2-bfdb-c1bb34e8f93c')
      .executeTakeFirstOrThrow();
    expect(Number(job.salary_min_annual_eur)).toBeCloseTo(24000, 2);
    expect(Number(job.salary_max_annual_eur)).toBeCloseTo(35000, 2);
  });
});
