/**
 * The read replica (issue 20, DATABASE_REPLICA_URL; docs/deploy.md "Read replica"): listings,
 * companies, facets and reports are read from the replica; keys, meters, the change feed, the export
 * and every write stay on the primary.
 *
 * Two set-ups. First, a second database standing in for the replica, on the tests' own server: a clone
 * of the same migrated ledger whose rows differ from the primary's (each side has jobs and companies
 * the other lacks) and read-only as a hot standby is (`default_transaction_read_only`), so every answer
 * says which side it was read from and any write sent there would fail; `jobledger serve` with the
 * setting is run over it too. Second, a real streaming standby (test/helpers/streaming-replica.ts):
 * a small embedded PostgreSQL 18 primary of its own and a standby made from a base backup of it (the
 * low-level backup API: the embedded package ships no pg_basebackup, and the machine's, PostgreSQL
 * 15's, cannot copy a version 18 server), with replay paused to show what a lagging replica serves.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApiKey, type CreatedKey } from '../src/access/api-keys.ts';
import { refreshReports } from '../src/reports/snapshots.ts';
import { connect } from '../src/store/database.ts';
import { bearer, buildTestApp, createKey } from './helpers/app.ts';
import { startCli, type CliProcess } from './helpers/cli-process.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';
import { posting, writeCrawl } from './helpers/postings.ts';
import { eventually, startStreamingPair, type StreamingPair } from './helpers/streaming-replica.ts';

const PARIS = { locations: [{ country: 'France', city: 'Paris' }], location: 'Paris, France' };
/** When the replica's report snapshots were measured: no snapshot of the primary's says so. */
const REPLICA_MEASURED_AT = new Date('2026-11-01T06:00:00.000Z');

let primary: TestDatabase;
let replica: TestDatabase;
/** A read-only pool on the replica, as `serve` opens it. */
let replicaReader: ReturnType<typeof connect>;
let app: FastifyInstance;
let key: CreatedKey;

beforeAll(async () => {
  [primary, replica] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  await writeCrawl(primary.db, { providerId: 'greenhouse', board: 'primary-only', postings: [posting('p-1', 'Primary Welder', { name: 'Primary Works', domain: 'primary-works.example' })] });
  await writeCrawl(replica.db, {
    providerId: 'greenhouse',
    board: 'replica-only',
    postings: [posting('r-1', 'Replica Baker', { name: 'Replica Bakery', domain: 'replica-bakery.example' }, PARIS), posting('r-2', 'Replica Pastry Chef', { name: 'Replica Bakery', domain: 'replica-bakery.example' }, PARIS)],
  });
  await refreshReports(replica.db, REPLICA_MEASURED_AT);
  // A hot standby refuses every write; so does this database from now on.
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  await admin.query(`ALTER DATABASE ${admin.escapeIdentifier(replica.name)} SET default_transaction_read_only = on`);
  await admin.end();
  replicaReader = connect(replica.url, { statementTimeoutMs: 0, maxConnections: 4 });
  // Keys exist on the primary only.
  key = await createKey(primary, 'scale');
  app = await buildTestApp(primary, { reader: replicaReader.db });
});
afterAll(async () => {
  await app?.close();
  await replicaReader?.db.destroy();
  await Promise.all([primary?.drop(), replica?.drop()]);
});

const keyed = (url: string) => app.inject({ method: 'GET', url, headers: bearer(key) });
const keyless = (url: string) => app.inject({ method: 'GET', url });
const titles = (body: { data: Array<{ title: string }> }) => body.data.map((j) => j.title).sort();

describe('with DATABASE_REPLICA_URL', () => {
  it('is refused a write by the stand-in replica, as a hot standby refuses it', async () => {
    await expect(replicaReader.db.deleteFrom('jobs').execute()).rejects.toThrow(/read-only transaction/);
  });

  it('reads listings from the replica, with the key and its meter on the primary', async () => {
    const page = await keyed('/v1/jobs?limit=50');
    expect(page.statusCode, page.body).toBe(200);
    expect(titles(page.json())).toEqual(['Replica Baker', 'Replica Pastry Chef']);
    expect(titles((await keyless('/public/jobs')).json())).toEqual(['Replica Baker', 'Replica Pastry Chef']);
    const one = page.json().data[0] as { id: string; slug: string };
    expect((await keyed(`/v1/jobs/${one.id}`)).statusCode).toBe(200);
    expect((await keyless(`/public/jobs/${one.slug}`)).statusCode).toBe(200);
    // The records were charged on the primary (the replica refuses writes, so they could be nowhere
    // else): this process took a block of records there (docs/metering.md, record blocks) and served 3.
    const usage = await primary.db.selectFrom('record_usage').select('used').where('api_key_id', '=', key.id).executeTakeFirstOrThrow();
    expect(usage.used).toBeGreaterThanOrEqual(2 + 1);
    // The budget headers count what was served.
    expect((await keyed('/v1/me')).headers['x-ratelimit-records-used']).toBe('3');
  });

  it('reads companies, facets and reports from the replica', async () => {
    const companies = (await keyed('/v1/companies?limit=50')).json() as { data: Array<{ name: string; slug: string }> };
    expect(companies.data.map((c) => c.name)).toEqual(['Replica Bakery']);
    expect((await keyless('/public/companies')).json().data.map((c: { name: string }) => c.name)).toEqual(['Replica Bakery']);
    expect((await keyless(`/public/companies/${companies.data[0]!.slug}`)).statusCode).toBe(200);
    for (const facets of [await keyed('/v1/meta/facets'), await keyless('/public/facets')]) {
      expect(facets.statusCode, facets.body).toBe(200);
      expect(facets.json().live_listings).toBe(2);
    }
    for (const report of ['/public/stats', '/public/coverage', '/public/freshness']) {
      const res = await keyless(report);
      expect(res.statusCode, report).toBe(200);
      expect(res.json().data.measured_at, report).toBe(REPLICA_MEASURED_AT.toISOString());
    }
  });

  it('keeps the change feed and the export on the primary', async () => {
    const changes = await keyed(`/v1/changes?since=${encodeURIComponent('2000-01-01T00:00:00Z')}&limit=100`);
    expect(changes.statusCode, changes.body).toBe(200);
    expect(changes.json().data.map((c: { job?: { title: string } }) => c.job?.title)).toEqual(['Primary Welder']);
    const exported = await keyed('/v1/export');
    expect(exported.statusCode, exported.body).toBe(200);
    const lines = exported.body.trimEnd().split('\n').map((l) => JSON.parse(l) as { title?: string; complete?: boolean });
    expect(lines.map((l) => l.title ?? (l.complete ? 'complete' : 'error'))).toEqual(['Primary Welder', 'complete']);
  });

  /** `/health/ready` of an app whose `pool` reads through a pool on a port nobody listens on: 503 `unavailable`. */
  async function expectNotReadyWithout(pool: 'reader' | 'genericReader'): Promise<void> {
    const gone = connect(`postgres://nobody@127.0.0.1:${await freePort()}/none`, { statementTimeoutMs: 0, maxConnections: 1 });
    const orphan = await buildTestApp(primary, pool === 'reader' ? { reader: gone.db } : { reader: replicaReader.db, genericReader: gone.db });
    try {
      const res = await orphan.inject({ method: 'GET', url: '/health/ready' });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toBe('unavailable');
    } finally {
      await orphan.close();
      await gone.db.destroy();
    }
  }

  it('is ready only while both answer', async () => {
    expect((await keyless('/health/ready')).statusCode).toBe(200);
    await expectNotReadyWithout('reader');
  });

  it('is not ready while the generic-plan sessions cannot be opened', async () => {
    await expectNotReadyWithout('genericReader');
  });
});

describe('jobledger serve with DATABASE_REPLICA_URL', () => {
  let api: CliProcess | undefined;
  afterAll(async () => {
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  });

  it('opens the replica from the setting and serves listings from it', async () => {
    const port = await freePort();
    api = startCli(['serve', '--no-worker'], { DATABASE_URL: primary.url, DATABASE_REPLICA_URL: replica.url, PORT: String(port), HOST: '127.0.0.1', JOBLEDGER_KEYLESS_BURST: '0' });
    await api.waitFor('jobledger is serving');
    expect(api.output()).toContain('reading listings, companies, facets and reports from the replica');
    const base = `http://127.0.0.1:${port}`;
    const listed = (await (await fetch(`${base}/public/jobs`)).json()) as { data: Array<{ title: string }> };
    expect(titles(listed)).toEqual(['Replica Baker', 'Replica Pastry Chef']);
    // A cursor page of the unfiltered listing runs on the generic-plan sessions: opened on the replica too.
    const first = (await (await fetch(`${base}/v1/jobs?limit=1`, { headers: bearer(key) })).json()) as { data: Array<{ title: string }>; next_cursor: string };
    const second = (await (await fetch(`${base}/v1/jobs?limit=1&cursor=${first.next_cursor}`, { headers: bearer(key) })).json()) as { data: Array<{ title: string }> };
    expect([...titles(first), ...titles(second)].sort()).toEqual(['Replica Baker', 'Replica Pastry Chef']);
    const changes = await fetch(`${base}/v1/changes?since=2000-01-01T00:00:00Z`, { headers: bearer(key) });
    expect(changes.status).toBe(200);
    expect(((await changes.json()) as { data: Array<{ job?: { title: string } }> }).data.map((c) => c.job?.title)).toEqual(['Primary Welder']);
  });
});

describe('a real streaming standby', () => {
  let pair: StreamingPair | undefined;
  let standbyReader: ReturnType<typeof connect> | undefined;
  let streamingApp: FastifyInstance | undefined;
  let streamingKey: CreatedKey;

  beforeAll(async () => {
    pair = await startStreamingPair();
    standbyReader = connect(pair.standbyUrl, { statementTimeoutMs: 0, maxConnections: 4 });
    streamingKey = await createApiKey(pair.primary.db, { planId: 'scale', name: 'streaming standby test' });
    streamingApp = await buildTestApp({ db: pair.primary.db } as TestDatabase, { reader: standbyReader.db });
  });
  afterAll(async () => {
    await streamingApp?.close();
    await standbyReader?.db.destroy();
    await pair?.stop();
  });

  const listed = async () => titles((await streamingApp!.inject({ method: 'GET', url: '/v1/jobs?limit=50', headers: bearer(streamingKey) })).json());
  const changed = async () =>
    ((await streamingApp!.inject({ method: 'GET', url: `/v1/changes?since=${encodeURIComponent('2000-01-01T00:00:00Z')}&limit=100`, headers: bearer(streamingKey) })).json() as { data: Array<{ job?: { title: string } }> }).data
      .map((c) => c.job?.title)
      .sort();

  it('lists what the standby has replayed while the change feed reads the primary: a lagging row is in /v1/changes first', async () => {
    await writeCrawl(pair!.primary.db, { providerId: 'greenhouse', board: 'first', postings: [posting('s-1', 'Streamed Cooper', { name: 'Cooperage', domain: 'cooperage.example' })] });
    await eventually(async () => (await listed()).includes('Streamed Cooper'), 'the standby replays the first crawl');
    // The standby now lags on purpose: it keeps answering with what it had replayed.
    await pair!.pauseReplay();
    await writeCrawl(pair!.primary.db, { providerId: 'greenhouse', board: 'second', postings: [posting('s-2', 'Lagging Wheelwright', { name: 'Wheelworks', domain: 'wheelworks.example' })] });
    expect(await changed()).toEqual(['Lagging Wheelwright', 'Streamed Cooper']);
    expect(await listed()).toEqual(['Streamed Cooper']);
    await pair!.resumeReplay();
    await eventually(async () => (await listed()).includes('Lagging Wheelwright'), 'the standby catches up');
    expect(await listed()).toEqual(['Lagging Wheelwright', 'Streamed Cooper']);
    // Every listing above was metered on the primary (the standby refuses writes).
    const usage = await pair!.primary.db.selectFrom('record_usage').select('used').where('api_key_id', '=', streamingKey.id).executeTakeFirstOrThrow();
    expect(usage.used).toBeGreaterThanOrEqual(4);
    await expect(standbyReader!.db.deleteFrom('jobs').execute()).rejects.toThrow(/read-only transaction/);
  });
});
