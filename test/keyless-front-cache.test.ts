/**
 * The keyless front cache (issue 22, src/http/keyless-front-cache.ts) over a real socket: a repeated
 * `GET /public/jobs` is answered ahead of the router with the router's own status, fields and bytes
 * (identity or coded), the per-address limit still counts it once, and whatever the router would answer
 * differently (a 429, a conditional request, a recorded change) is answered by the router.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeylessPageCache } from '../src/http/keyless-page-cache.ts';
import { keylessFrontCacheHits } from '../src/observability/metrics.ts';
import { buildTestApp } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { capturingLog } from './helpers/logs.ts';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** One GET over a fresh connection, with exactly these request fields (plus Host). */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function hits(): Promise<number> {
  return (await keylessFrontCacheHits.get()).values[0]?.value ?? 0;
}

/** The response fields a hit writes afresh; every other one must be the router's. */
const PER_REQUEST = ['x-request-id', 'ratelimit', 'date', 'connection', 'keep-alive'];

function storedFields(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_REQUEST.includes(name)));
}

/** `r` (requests left) of a keyless `RateLimit` field. */
function remaining(headers: IncomingHttpHeaders): number {
  return Number(/;r=(\d+)/.exec(String(headers.ratelimit))?.[1]);
}

describe('the keyless front cache', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let limited: FastifyInstance;
  let port: number;
  let limitedPort: number;
  const { log, lines: logLines } = capturingLog();

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    // A watermark reading is reused for 300 ms here (a second in `serve`), so a change shows quickly.
    app = await buildTestApp(t, { keylessPageCache: new KeylessPageCache({ watermarkMaxAgeMs: 300 }), keylessFrontCache: true, log, contract: false });
    limited = await buildTestApp(t, { keylessPageCache: new KeylessPageCache(), keylessFrontCache: true, keylessBurst: 3, contract: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    await limited.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    limitedPort = (limited.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app?.close();
    await limited?.close();
    await t?.drop();
  });

  it('answers a repeated request with the router’s status, fields and bytes, counting the limit once', async () => {
    const before = await hits();
    const first = await get(port, '/public/jobs?limit=5&country=US');
    expect(await hits()).toBe(before);
    const second = await get(port, '/public/jobs?limit=5&country=US');
    const third = await get(port, '/public/jobs?limit=5&country=US', { 'x-request-id': 'client-chosen-id-42' });
    expect(await hits()).toBe(before + 2);

    expect(first.status).toBe(200);
    expect(JSON.parse(first.body.toString('utf8')).data.length).toBeGreaterThan(0);
    for (const answer of [second, third]) {
      expect(answer.status).toBe(200);
      expect(answer.body.equals(first.body)).toBe(true);
      expect(storedFields(answer.headers)).toEqual(storedFields(first.headers));
      expect(answer.headers['content-length']).toBe(String(first.body.length));
    }
    expect(first.headers.etag).toMatch(/^"/);
    expect(second.headers['cache-control']).toBe('public, max-age=300');
    expect(second.headers['access-control-allow-origin']).toBe('*');
    // Each request counted once in the address's window, whichever path answered it.
    expect(remaining(second.headers)).toBe(remaining(first.headers) - 1);
    expect(remaining(third.headers)).toBe(remaining(first.headers) - 2);
    expect(second.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(third.headers['x-request-id']).toBe('client-chosen-id-42');

    // One access line per request, the hit's like the router's: path, parameter names, no values.
    const line = logLines.find((l) => l.reqId === 'client-chosen-id-42');
    expect(line).toMatchObject({ msg: 'request completed', req: { method: 'GET', path: '/public/jobs', params: ['limit', 'country'] }, res: { statusCode: 200 } });
    expect(JSON.stringify(line)).not.toContain('country=US');
  });

  it('stores each coding apart, with its exact length', async () => {
    const path = '/public/jobs?limit=20';
    const gzip = { 'accept-encoding': 'gzip' };
    const identity = await get(port, path);
    const first = await get(port, path, gzip);
    const before = await hits();
    const second = await get(port, path, gzip);
    expect(await hits()).toBe(before + 1);
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(second.headers['content-encoding']).toBe('gzip');
    expect(second.headers['content-length']).toBe(String(second.body.length));
    expect(second.body.equals(first.body)).toBe(true);
    expect(gunzipSync(second.body).equals(identity.body)).toBe(true);
    expect(storedFields(second.headers)).toEqual(storedFields(first.headers));
    // And the identity request is still answered in identity.
    const again = await get(port, path);
    expect(again.headers['content-encoding']).toBeUndefined();
    expect(again.body.equals(identity.body)).toBe(true);
  });

  it('leaves conditional requests, cookies and other paths to the router', async () => {
    const path = '/public/jobs?limit=3';
    const first = await get(port, path);
    await get(port, path);
    const before = await hits();
    const revalidated = await get(port, path, { 'if-none-match': String(first.headers.etag) });
    expect(revalidated.status).toBe(304);
    expect(revalidated.body.length).toBe(0);
    expect((await get(port, path, { cookie: 'jl_session=x' })).body.equals(first.body)).toBe(true);
    expect((await get(port, '/public/facets')).status).toBe(200);
    expect(await hits()).toBe(before);
  });

  it('answers a recorded change from the router as soon as the page cache would', async () => {
    const path = '/public/jobs?limit=1';
    const before = await get(port, path);
    await get(port, path);
    const job = JSON.parse(before.body.toString('utf8')).data[0] as { id: string };
    await sql`UPDATE jobs SET title = 'Front Cache Probe Engineer' WHERE id = ${job.id}`.execute(t.db);
    await sql`INSERT INTO change_events (job_id, change) VALUES (${job.id}, 'updated')`.execute(t.db);
    // Past the watermark reading's age: the next request reads the watermark again.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const after = await get(port, path);
    expect(JSON.parse(after.body.toString('utf8')).data[0].title).toBe('Front Cache Probe Engineer');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // The new answer is the one repeated from then on.
    const repeated = await get(port, path);
    expect(repeated.body.equals(after.body)).toBe(true);
  });

  it('keeps the per-address limit: the refusal is the router’s 429, each request counted once', async () => {
    const answers: Answer[] = [];
    for (let i = 0; i < 5; i++) answers.push(await get(limitedPort, '/public/jobs?limit=2'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    expect(answers.slice(0, 3).map((a) => remaining(a.headers))).toEqual([2, 1, 0]);
    const refusal = JSON.parse(answers[3]!.body.toString('utf8')) as { error: string };
    expect(refusal.error).toBe('rate_limited');
    expect(Number(answers[3]!.headers['retry-after'])).toBeGreaterThan(0);
    expect(answers[3]!.headers['cache-control']).toBe('no-store');
  });
});
