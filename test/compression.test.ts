/**
 * Response compression (issue 20, "HTTP"; src/http/compression.ts): br, gzip and deflate negotiated by
 * Accept-Encoding on a real loopback server, bodies that decode to exactly the identity bytes, the
 * export still streaming when compressed, and the ETag/304 of the uncompressed content unchanged.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/domain/errors.ts';
import type { RecordMeter } from '../src/http/record-meter.ts';
import { bearer, useCorpusApp } from './helpers/app.ts';

const ctx = useCorpusApp({ key: 'unlimited' });
let port: number;
/** The record meter of the next export request, when a test installs one. */
let meter: RecordMeter | undefined;

beforeAll(async () => {
  ctx.app.addHook('preHandler', async (request) => {
    if (meter && request.apiKey) request.recordMeter = meter;
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  port = (ctx.app.server.address() as AddressInfo).port;
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (still coded). */
  raw: Buffer;
}

/** GET `path` over loopback; `onChunk` sees each received (coded) chunk. */
function get(path: string, headers: Record<string, string>, onChunk?: (chunk: Buffer) => void): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          onChunk?.(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, raw: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

const decoders: Record<string, (bytes: Buffer) => Buffer> = {
  br: zlib.brotliDecompressSync,
  gzip: zlib.gunzipSync,
  deflate: zlib.inflateSync,
};

describe('a large keyless page', () => {
  const page = '/public/jobs?limit=50';

  it('answers identity without Accept-Encoding, and br, gzip or deflate that decode to exactly those bytes', async () => {
    const identity = await get(page, {});
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toMatch(/accept-encoding/i);
    expect(identity.raw.length).toBeGreaterThan(20_000);
    expect(JSON.parse(identity.raw.toString('utf8')).data).toHaveLength(50);

    for (const coding of ['br', 'gzip', 'deflate']) {
      const coded = await get(page, { 'accept-encoding': coding });
      expect(coded.status, coding).toBe(200);
      expect(coded.headers['content-encoding'], coding).toBe(coding);
      expect(coded.headers.vary, coding).toMatch(/accept-encoding/i);
      // A body compressed in one go states its coded length; a larger one is streamed (chunked).
      if (coded.headers['content-length'] !== undefined) expect(Number(coded.headers['content-length']), coding).toBe(coded.raw.length);
      expect(coded.raw.length, coding).toBeLessThan(identity.raw.length / 3);
      expect(decoders[coding]!(coded.raw).equals(identity.raw), coding).toBe(true);
      // The validator is the content's, whatever its coding.
      expect(coded.headers.etag, coding).toBe(identity.headers.etag);
    }
  });

  it('follows the client\'s weights, prefers br on a tie, and keeps identity when nothing offered is accepted', async () => {
    expect((await get(page, { 'accept-encoding': 'gzip, deflate, br' })).headers['content-encoding']).toBe('br');
    expect((await get(page, { 'accept-encoding': 'br;q=0.5, gzip' })).headers['content-encoding']).toBe('gzip');
    const unknown = await get(page, { 'accept-encoding': 'compress' });
    expect(unknown.status).toBe(200);
    expect(unknown.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(unknown.raw.toString('utf8')).data).toHaveLength(50);
  });

  it('revalidates a compressed page with its ETag: 304, no body', async () => {
    const first = await get(page, { 'accept-encoding': 'gzip' });
    const again = await get(page, { 'accept-encoding': 'gzip', 'if-none-match': first.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.vary).toMatch(/accept-encoding/i);
  });

  it('leaves a body under 1 KiB as it is', async () => {
    const small = await get('/public/jobs/no-such-job', { 'accept-encoding': 'gzip' });
    expect(small.status).toBe(404);
    expect(small.raw.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.raw.toString('utf8')).error).toBe('not_found');
  });
});

describe('the export', () => {
  const url = '/v1/export?status=any';

  it('decodes from br and gzip to exactly the identity stream', async () => {
    const identity = await get(url, bearer(ctx.key));
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    const lines = identity.raw.toString('utf8').trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(500);
    expect(JSON.parse(lines.at(-1)!).complete).toBe(true);
    for (const coding of ['br', 'gzip']) {
      const coded = await get(url, { ...bearer(ctx.key), 'accept-encoding': coding });
      expect(coded.headers['content-encoding'], coding).toBe(coding);
      expect(coded.raw.length, coding).toBeLessThan(identity.raw.length / 3);
      expect(decoders[coding]!(coded.raw).equals(identity.raw), coding).toBe(true);
    }
  });

  for (const coding of ['br', 'gzip']) {
    it(`still streams under ${coding}: the first line is decoded while the ledger's next batch waits`, async () => {
      // The meter grants 100 records at a time, so each batch is read after a reservation; from the
      // second on, a reservation waits until the client has decoded a whole line. A compressor that
      // held the body back would leave it waiting (then the wait gives up and the test fails).
      let reservations = 0;
      let reservationsAtFirstLine: number | undefined;
      let firstLineDecoded!: () => void;
      const decoded = new Promise<void>((resolve) => (firstLineDecoded = resolve));
      let waited: Promise<unknown> | undefined;
      meter = {
        async reserve() {
          reservations++;
          if (reservations >= 2) await (waited ??= Promise.race([decoded, new Promise((resolve) => setTimeout(resolve, 5_000))]));
          return 100;
        },
        async settle() {},
      };
      const decoder = coding === 'br' ? zlib.createBrotliDecompress() : zlib.createGunzip();
      let text = '';
      decoder.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (reservationsAtFirstLine === undefined && text.includes('\n')) {
          reservationsAtFirstLine = reservations;
          firstLineDecoded();
        }
      });
      try {
        const answer = await get(url, { ...bearer(ctx.key), 'accept-encoding': coding }, (chunk) => decoder.write(chunk));
        await new Promise((resolve) => decoder.end(resolve));
        expect(answer.headers['content-encoding']).toBe(coding);
        const lines = text.trimEnd().split('\n');
        expect(JSON.parse(lines.at(-1)!).complete).toBe(true);
        // Some 5 batches or more were read in all, and the first line was out before the second batch.
        expect(reservations).toBeGreaterThan(5);
        expect(reservationsAtFirstLine).toBeLessThanOrEqual(2);
      } finally {
        meter = undefined;
      }
    });
  }

  it('refuses a spent allowance with a plain 402 however it is asked', async () => {
    meter = {
      async reserve() {
        throw new ApiError('record_quota_exhausted', 'The monthly record allowance of this key is spent.');
      },
      async settle() {},
    };
    try {
      const refused = await get(url, { ...bearer(ctx.key), 'accept-encoding': 'gzip' });
      expect(refused.status).toBe(402);
      const body = refused.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(refused.raw) : refused.raw;
      expect(JSON.parse(body.toString('utf8')).error).toBe('record_quota_exhausted');
    } finally {
      meter = undefined;
    }
  });
});
