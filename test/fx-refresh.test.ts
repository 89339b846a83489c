/**
 * The scheduled ECB rate fetch (issue 15 class 5) against a loopback HTTP server answering on the
 * ECB's path with the ECB's documented eurofxref-daily.xml shape (payload written for this test; no
 * recorded ECB XML is bundled), through the real guarded fetcher into the real fx_rates table, and
 * the freshness report built on what was stored.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFxRates, type FxRates } from '../src/enrich/fx.ts';
import { createFetcher, type GuardedFetcher } from '../src/ingest/fetcher.ts';
import { clusterChores } from '../src/chores/chores.ts';
import { currentFxRates, followFxRates, refreshFxRates } from '../src/ingest/fx-refresh.ts';
import { createReportReader, defaultReportSettings } from '../src/reports/snapshots.ts';
import { latestFxDays } from '../src/store/fx-rates.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { capturingLog } from './helpers/logs.ts';
import { loopbackFetchConfig } from './helpers/fixtures.ts';

const PATH = '/stats/eurofxref/eurofxref-daily.xml';
const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);

/** The ECB's documented daily file: one dated Cube of `currency`/`rate` Cubes, units per 1 EUR. */
function dailyXml(date: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${date}'>
\t\t\t<Cube currency='USD' rate='1.0500'/>
\t\t\t<Cube currency='JPY' rate='162.40'/>
\t\t\t<Cube currency='GBP' rate='0.8400'/>
\t\t\t<Cube currency='ISK' rate='150.10'/>
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;
}

describe('ECB rate refresh', () => {
  let t: TestDatabase;
  let server: http.Server;
  let base: string;
  let fetcher: GuardedFetcher;
  const requests: string[] = [];
  let answer: { status: number; body: string } = { status: 200, body: dailyXml(today) };
  const bundled = loadFxRates();

  beforeAll(async () => {
    t = await createTestDatabase();
    server = http.createServer((req, res) => {
      requests.push(req.url ?? '');
      if (req.url !== PATH) return void res.writeHead(404).end('not found');
      res.writeHead(answer.status, { 'content-type': 'text/xml' }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fetcher = createFetcher(loopbackFetchConfig());
  });
  afterAll(async () => {
    await fetcher.close();
    await new Promise((resolve) => server.close(resolve));
    await t.drop();
  });

  it('a failed fetch stores nothing, keeps the bundled rates and says why in the log', async () => {
    const { log, lines } = capturingLog();
    answer = { status: 503, body: 'maintenance' };
    const failed = await refreshFxRates(t.db, fetcher, base + PATH, log);
    expect(failed).toMatchObject({ ok: false, reason: expect.stringMatching(/http_status 503/) });
    answer = { status: 200, body: '<html><body>Service unavailable</body></html>' };
    expect(await refreshFxRates(t.db, fetcher, base + PATH, log)).toMatchObject({ ok: false, reason: expect.stringMatching(/no dated rates/) });
    // The SSRF guard: a fetcher without the loopback allowance refuses the address.
    const guarded = createFetcher(loopbackFetchConfig({ allow: [] }));
    try {
      expect(await refreshFxRates(t.db, guarded, base + PATH, log)).toMatchObject({ ok: false, reason: expect.stringMatching(/^blocked/) });
    } finally {
      await guarded.close();
    }
    expect(lines.filter((l) => l['msg'] === 'ECB rate fetch failed; the rates in use are unchanged')).toHaveLength(3);
    expect(await latestFxDays(t.db)).toEqual([]);
    expect(await currentFxRates(t.db)).toBe(bundled);
  });

  it('stores the day and makes the newest rates current, the bundled ones for currencies the ECB did not send', async () => {
    answer = { status: 200, body: dailyXml(today) };
    const { log } = capturingLog();
    const outcome = await refreshFxRates(t.db, fetcher, base + PATH, log);
    expect(outcome).toMatchObject({ ok: true, days: 1, inserted: 4 });
    const rates = (outcome as { rates: FxRates }).rates;
    expect(rates.asOf).toBe(today);
    expect(rates.source).toBe('ecb');
    expect(rates.eurPerUnit.USD).toBe(1 / 1.05);
    expect(rates.eurPerUnit.GBP).toBe(1 / 0.84);
    expect(rates.eurPerUnit.AED).toBeCloseTo(1 / 1.05 / 3.6725, 12);
    expect(rates.eurPerUnit.CHF).toBe(bundled.eurPerUnit.CHF);
    expect(await currentFxRates(t.db)).toEqual(rates);
    // A second fetch of the same day adds no history.
    expect(await refreshFxRates(t.db, fetcher, base + PATH, log)).toMatchObject({ ok: true, inserted: 0 });
  });

  it('the cluster chore fetches on the ECB path, and a worker following the stored rates gets them', async () => {
    const { log } = capturingLog();
    const before = requests.length;
    const chores = clusterChores({ db: t.db, reports: defaultReportSettings(900), retention: { changeEventDays: 90, crawlRunDays: 90 }, fx: { fetcher, url: base + PATH, everySeconds: 3600, log } });
    const fx = chores.find((c) => c.name === 'fx-refresh')!;
    expect(fx.everySeconds).toBe(3600);
    expect(await fx.run(new Date())).toMatchObject({ days: 1, rates_as_of: today });
    expect(requests.slice(before)).toEqual([PATH]);
    // A worker that started on the bundled rates switches to the stored ones, without fetching.
    const handed = await new Promise<FxRates>((resolve) => {
      const follower = followFxRates({ db: t.db, everySeconds: 1, log, current: bundled, onRates: (r) => void follower.stop().then(() => resolve(r)) });
    });
    expect(handed.asOf).toBe(today);
    expect(handed.source).toBe('ecb');
    expect(requests.slice(before)).toEqual([PATH]);
  });

  it('the freshness report states the fetched rates and is stale once they pass the max age', async () => {
    const settings = { ...defaultReportSettings(900, 5) };
    const reader = createReportReader(t.db, settings);
    const fresh = await reader.read('freshness');
    const norm = fresh.data['salary_normalisation'] as { rates_as_of: string; rates_eur_per_unit: Record<string, number> };
    expect(norm.rates_as_of).toBe(today);
    expect(norm.rates_eur_per_unit['USD']).toBe(1 / 1.05);
    expect(fresh.stale).toBe(false);

    // Six days on (the snapshot's own window made long enough not to matter), the rates are too old.
    const later = new Date(fresh.measuredAt.getTime() + 6 * DAY_MS);
    const longWindow = { ...settings, refreshSeconds: 30 * 86_400 };
    expect((await createReportReader(t.db, longWindow).read('freshness', later)).stale).toBe(true);
    expect((await createReportReader(t.db, { ...longWindow, fxMaxAgeDays: 10 }).read('freshness', later)).stale).toBe(false);
    // Without the fetch (the demo) the rates alone never make the report stale.
    const { fxMaxAgeDays: _off, ...noFetch } = longWindow;
    expect((await createReportReader(t.db, noFetch).read('freshness', later)).stale).toBe(false);
  });
});
