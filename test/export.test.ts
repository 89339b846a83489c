/**
 * GET /v1/export (spec: GET /v1/export; Errors, "Export exception"; Metering rules 2): entitlement,
 * id order, the status sets, resuming with `after`, the record allowance ending a stream with the
 * quota line, and streaming with flat memory and backpressure over 100,000 generated rows.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/domain/errors.ts';
import type { Job } from '../src/domain/job.ts';
import type { RecordMeter } from '../src/http/record-meter.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { bearer, buildTestApp, createKey, TEST_DOCS_URL } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { generateJobs } from './helpers/generator.ts';

/** The change-feed watermark of the final line (issue 20): a /v1/changes cursor after every committed change. */
const WATERMARK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\|ffffffff-ffff-ffff-ffff-ffffffffffff$/;

type Line = Job & { complete?: true; error?: string; count?: number; after?: string | null };
type Page = { data: Job[]; next_cursor: string | null };

function parse(body: string): { jobs: Job[]; last: Line } {
  expect(body.endsWith('\n')).toBe(true);
  const lines = body.trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
  const last = lines.pop()!;
  expect(last.id).toBeUndefined();
  expect(lines.every((l) => typeof l.id === 'string')).toBe(true);
  return { jobs: lines, last };
}

/** A record meter with a fixed allowance, honouring the reserve/settle contract. */
function allowanceMeter(allowance: number): RecordMeter & { used: number } {
  let reserved = 0;
  const meter = {
    used: 0,
    async reserve(wanted: number) {
      const left = allowance - meter.used;
      if (left <= 0) throw new ApiError('record_quota_exhausted', 'The monthly record allowance of this key is spent.');
      reserved = Math.min(wanted, left);
      return reserved;
    },
    async settle(used: number) {
      expect(used).toBeLessThanOrEqual(reserved);
      meter.used += used;
      reserved = 0;
    },
  };
  return meter;
}

describe('bulk export on the imported corpus', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let key: CreatedKey;
  let meter: RecordMeter | undefined;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    app = await buildTestApp(t);
    // Stands in for the access layer's meter when a test installs one.
    app.addHook('preHandler', async (request) => {
      if (meter && request.apiKey) request.recordMeter = meter;
    });
    key = await createKey(t, 'signal');
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  const exportOf = (query: string, k: CreatedKey = key) => app.inject({ method: 'GET', url: `/v1/export${query}`, headers: bearer(k) });
  const idsWhere = async (where: ReturnType<typeof sql>) =>
    (await sql<{ id: string }>`SELECT j.id FROM jobs j WHERE ${where} ORDER BY j.id`.execute(t.db)).rows.map((r) => r.id);

  it('needs bulk_export: explore and growth keys get 403 upgrade_required naming the feature', async () => {
    for (const plan of ['explore', 'growth']) {
      const res = await exportOf('', await createKey(t, plan));
      expect(res.statusCode).toBe(403);
      expect(res.headers['x-svc-required-feature']).toBe('bulk_export');
      expect(res.json()).toMatchObject({ error: 'upgrade_required', docs: `${TEST_DOCS_URL}#upgrade_required` });
    }
    expect((await app.inject({ method: 'GET', url: '/v1/export' })).statusCode).toBe(401);
  });

  it('streams every served row as NDJSON in id order and ends with a complete line carrying the count', async () => {
    const res = await exportOf('');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const { jobs, last } = parse(res.body);
    expect(jobs.map((j) => j.id)).toEqual(await idsWhere(sql`j.served`));
    expect(last).toEqual({ complete: true, count: jobs.length, after: jobs[jobs.length - 1]!.id, since: expect.stringMatching(WATERMARK) });
    expect(jobs.every((j) => j.status === 'live' && j.description === undefined)).toBe(true);
    const described = parse((await exportOf('?include_description=true&limit=500')).body).jobs;
    expect(described.length).toBe(jobs.length);
    expect(described.filter((j) => j.has_description).every((j) => typeof j.description === 'string' && j.description.length > 0)).toBe(true);
    expect(described.filter((j) => !j.has_description).every((j) => j.description === undefined)).toBe(true);
  });

  it('yields the same rows as /v1/jobs for the shared filters', async () => {
    const { jobs } = parse((await exportOf('?country=US,de&remote=remote,hybrid')).body);
    let listed: Job[] = [];
    let cursor: string | null = null;
    do {
      const page = (await app.inject({ method: 'GET', url: `/v1/jobs?country=US,de&remote=remote,hybrid&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, headers: bearer(key) })).json() as Page;
      listed = listed.concat(page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.map((j) => j.id)).toEqual(listed.map((j) => j.id).sort());
    const byId = new Map(listed.map((j) => [j.id, j]));
    for (const job of jobs) expect(job).toEqual(byId.get(job.id));
  });

  it('status=closed and status=any: the employer-posted, non-withheld rows, live or closed', async () => {
    // The set /v1/jobs?status=any pages through (spec: GET /v1/jobs status), computed independently.
    const closedSet = sql`(j.status = 'closed' AND j.poster_type IS NULL AND j.withheld_kind IS NULL)`;
    const closed = parse((await exportOf('?status=CLOSED')).body);
    expect(closed.jobs.map((j) => j.id)).toEqual(await idsWhere(closedSet));
    expect(closed.jobs.every((j) => j.status === 'closed' && j.closed_at !== null && j.closed_reason !== null)).toBe(true);
    const any = parse((await exportOf('?status=any')).body);
    expect(any.jobs.map((j) => j.id)).toEqual(await idsWhere(sql`(j.served OR ${closedSet})`));
    expect(any.jobs.length).toBe(closed.jobs.length + parse((await exportOf('')).body).jobs.length);
    expect(any.last).toMatchObject({ complete: true, count: any.jobs.length });
    const bad = await exportOf('?status=open');
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ error: 'bad_status', message: expect.stringContaining('"open"') });
  });

  it('resumes after a cut at any line with exactly the remaining rows', async () => {
    const full = parse((await exportOf('?status=any')).body).jobs;
    // Cut points spread over the stream: the first row, a batch boundary, a random line (different on
    // every run; a failure names it), the last rows.
    const random = Math.floor(Math.random() * full.length);
    for (const cut of [0, 499, 500, random, full.length - 2, full.length - 1]) {
      const rest = parse((await exportOf(`?status=any&after=${full[cut]!.id.toUpperCase()}`)).body);
      expect(rest.jobs.map((j) => j.id), `cut after line ${cut}`).toEqual(full.slice(cut + 1).map((j) => j.id));
      // after: where to resume from — the last row written, or the request's own after when none was.
      expect(rest.last).toEqual({ complete: true, count: full.length - cut - 1, after: full[full.length - 1]!.id, since: expect.stringMatching(WATERMARK) });
    }
    expect((await exportOf('?after=not-an-id')).json()).toMatchObject({ error: 'bad_cursor' });
  });

  it('resumes a connection cut in transit, mid-line, from the last complete line', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    const full = parse((await exportOf('?status=any')).body).jobs;
    // Read about 40% of the body, cut the connection mid-line, keep only complete lines.
    const partial = await new Promise<string>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/v1/export?status=any', headers: bearer(key) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.length > 1_500_000) {
            req.destroy();
            resolve(text);
          }
        });
        res.on('error', () => undefined);
      });
      req.on('error', (error) => (error.message.includes('aborted') || (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(error)));
    });
    const complete = partial.slice(0, partial.lastIndexOf('\n') + 1).trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
    expect(complete.length).toBeGreaterThan(100);
    expect(complete.length).toBeLessThan(full.length);
    expect(complete.every((l) => typeof l.id === 'string')).toBe(true);
    const rest = parse((await exportOf(`?status=any&after=${complete[complete.length - 1]!.id}`)).body);
    expect([...complete, ...rest.jobs].map((j) => j.id)).toEqual(full.map((j) => j.id));
  });

  it('charges one record per line; when the allowance runs out mid-stream the last line is the quota error with after', async () => {
    const all = parse((await exportOf('')).body).jobs;
    const m = allowanceMeter(1234);
    meter = m;
    try {
      const first = await exportOf('');
      expect(first.statusCode).toBe(200);
      const cut = parse(first.body);
      expect(cut.jobs.map((j) => j.id)).toEqual(all.slice(0, 1234).map((j) => j.id));
      expect(cut.last).toEqual({
        error: 'record_quota_exhausted',
        message: expect.stringContaining(`after=${all[1233]!.id}`),
        docs: `${TEST_DOCS_URL}#record_quota_exhausted`,
        count: 1234,
        after: all[1233]!.id,
        since: expect.stringMatching(WATERMARK),
      });
      expect(m.used).toBe(1234);

      // Nothing left: a plain 402 before any line is written.
      const spent = await exportOf('');
      expect(spent.statusCode).toBe(402);
      expect(spent.json().error).toBe('record_quota_exhausted');

      // A fresh allowance of exactly the rest: resumes and completes, no quota line.
      const rest = all.length - 1234;
      const m2 = allowanceMeter(rest);
      meter = m2;
      const second = parse((await exportOf(`?after=${cut.last.after}`)).body);
      expect(second.jobs.map((j) => j.id)).toEqual(all.slice(1234).map((j) => j.id));
      expect(second.last).toEqual({ complete: true, count: rest, after: all[all.length - 1]!.id, since: expect.stringMatching(WATERMARK) });
      expect(m2.used).toBe(rest);
    } finally {
      meter = undefined;
    }
  });
});

describe('bulk export at volume', () => {
  const ROWS = 100_000;
  let t: TestDatabase;
  let app: FastifyInstance;
  let key: CreatedKey;
  let port: number;
  const serverSockets: Socket[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    await generateJobs(t.db, { count: ROWS, descriptionBytes: 2000 });
    // Measures a real socket; the contract of the lines is checked by the corpus tests above.
    app = await buildTestApp(t, { contract: false });
    app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
    key = await createKey(t, 'scale');
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  }, 600_000);
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  function request(path: string, onResponse: (res: http.IncomingMessage) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      http
        // A connection of its own (no keep-alive reuse), so its server-side socket measures this export only.
        .get({ host: '127.0.0.1', port, path, headers: bearer(key), agent: false }, (res) => {
          res.on('end', resolve);
          res.on('error', reject);
          onResponse(res);
        })
        .on('error', reject);
    });
  }

  it('streams 100,000 rows with flat memory: what the process retains does not grow with the rows written', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
    const retained = () => {
      // A last-resort collection also finishes freeing what it found dead. After a plain gc(), V8
      // still counts the Buffers and external strings it frees on a background thread: on a loaded
      // machine (CI) that dead memory read 54-71 MB here, against 4-13 MB actually retained (500 to
      // 2,000 rows per batch).
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };
    const baseRetained = retained();
    const baseRss = process.memoryUsage().rss;
    let peakRetained = baseRetained;
    let peakRss = baseRss;
    let bytes = 0;
    let lines = 0;
    let tail = '';
    const sampler = setInterval(() => {
      peakRetained = Math.max(peakRetained, retained());
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 500);
    try {
      await request('/v1/export?status=any&include_description=true', (res) => {
        expect(res.statusCode).toBe(200);
        let chunks = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          for (const b of chunk) if (b === 10) lines++;
          tail = (tail + chunk.toString('utf8')).slice(-300);
          // A client slower than the server: pause now and then.
          if (++chunks % 200 === 0) {
            res.pause();
            setTimeout(() => res.resume(), 5);
          }
        });
      });
    } finally {
      clearInterval(sampler);
    }
    const last = JSON.parse(tail.trimEnd().split('\n').pop()!) as Line;
    expect(lines).toBe(ROWS + 1);
    expect(last).toMatchObject({ complete: true, count: ROWS });
    const MB = 1024 * 1024;
    const growth = { retainedMB: (peakRetained - baseRetained) / MB, rssMB: (peakRss - baseRss) / MB, outputMB: bytes / MB };
    console.info('export memory', growth);
    expect(bytes).toBeGreaterThan(250 * MB);
    // Retained memory (after garbage collection) stays within a few batches, whatever the output size.
    expect(growth.retainedMB).toBeLessThan(64);
    // The resident set grows by the garbage collector's working room, not with the rows written.
    expect(growth.rssMB).toBeLessThan(growth.outputMB * 0.75);
  }, 600_000);

  it('respects backpressure: while the client does not read, the server stops producing', async () => {
    let paused: http.IncomingMessage | undefined;
    const done = request('/v1/export?include_description=true', (res) => {
      res.once('data', () => {
        res.pause();
        paused = res;
      });
    });
    while (!paused) await new Promise((r) => setTimeout(r, 10));
    const client = paused;
    let bytes = 0;
    try {
      const socket = serverSockets[serverSockets.length - 1]!;
      const produced = () => socket.bytesWritten + socket.writableLength;
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      // The buffers between the paused client and the server fill first; on a loaded machine that
      // takes a while, and a slow batch query looks like a short stall. So wait (up to 60 s) until
      // production has not moved for 2 s, then judge what was produced: without backpressure the
      // server would have written the whole export (over 200 MB) by then.
      let before = produced();
      let still = 0;
      for (let waited = 0; waited < 60_000 && still < 2_000; waited += 250) {
        await sleep(250);
        const now = produced();
        still = now === before ? still + 250 : 0;
        before = now;
      }
      await sleep(1_000);
      const after = produced();
      // Stalled: what was produced is a few socket buffers, not the export, and stays so.
      expect(before).toBeLessThan(32 * 1024 * 1024);
      expect(after).toBeLessThan(32 * 1024 * 1024);
    } finally {
      client.on('data', (chunk: Buffer) => (bytes += chunk.length));
      client.resume();
      await done;
    }
    expect(bytes).toBeGreaterThan(200 * 1024 * 1024);
  }, 600_000);
});
