/**
 * The guarded fetcher against a real loopback server (the replay server over the bundled fixtures):
 * SSRF refusals, redirects, size and time caps, retries and status handling.
 */
import zlib from 'node:zlib';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFetcher, FetchError, MAX_REDIRECTS, parseRetryAfter } from './fetcher.ts';
import type { GuardedFetcher } from './fetcher.ts';
import { startReplayServer } from './replay-server.ts';
import type { ReplayServer } from './replay-server.ts';
import { FIXTURES, loopbackFetchConfig } from '../../test/helpers/fixtures.ts';
import { rejectionOf } from '../../test/helpers/rejection.ts';

const BOARD = '/posting-api/job-board/superhuman';

let replay: ReplayServer;
const fetchers: GuardedFetcher[] = [];

function fetcherWith(overrides: Parameters<typeof loopbackFetchConfig>[0] = {}, tuning?: Parameters<typeof createFetcher>[2], log?: pino.Logger) {
  const f = createFetcher(loopbackFetchConfig(overrides), log, tuning);
  fetchers.push(f);
  return f;
}

const failure = (promise: Promise<unknown>) => rejectionOf(promise, FetchError);

beforeAll(async () => {
  replay = await startReplayServer({ fixturesDir: FIXTURES });
});
afterAll(async () => {
  await Promise.all(fetchers.map((f) => f.close()));
  await replay.close();
});
beforeEach(() => {
  replay.requests.length = 0;
});

describe('SSRF guard', () => {
  it('refuses the loopback replay server when no allow-list is configured, by literal IP and by hostname', async () => {
    const guarded = fetcherWith({ allow: [] });
    const port = new URL(replay.url).port;
    expect((await failure(guarded.get(`${replay.url}${BOARD}`))).kind).toBe('blocked');
    // "localhost" is resolved inside the connect-time DNS hook; the refusal happens there.
    const byName = await failure(guarded.get(`http://localhost:${port}${BOARD}`));
    expect(byName.kind).toBe('blocked');
    expect(byName.message).toMatch(/localhost resolves to a refused address/);
    expect(replay.requests).toHaveLength(0);
  });

  it('reaches it with the allow-list 127.0.0.1/32, by literal IP and by hostname', async () => {
    const allowed = fetcherWith({ allow: ['127.0.0.1/32'] });
    const res = await allowed.get(`${replay.url}${BOARD}`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ jobs: [], apiVersion: '1' });
    const port = new URL(replay.url).port;
    const lookup = await import('node:dns').then((dns) => dns.promises.lookup('localhost', { all: true }));
    // Only when localhost resolves to 127.0.0.1 alone is it fully inside the allow-list.
    if (lookup.every((a) => a.address === '127.0.0.1')) {
      expect((await allowed.get(`http://localhost:${port}${BOARD}`)).status).toBe(200);
    }
  });

  it.each([
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.1.1/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://100.100.100.200/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::1]/', 'loopback'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://[fc00::1]/', 'uniqueLocal'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://100.64.0.1/', 'carrierGradeNat'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://240.0.0.1/', 'reserved'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
  ])('refuses the literal address in %s (%s) before connecting', async (url, why) => {
    const err = await failure(fetcherWith({ allow: [] }).get(url));
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain(why === 'metadata' ? 'cloud metadata' : why);
  });

  it('keeps refusing metadata addresses when a broader allow-list block covers them', async () => {
    const err = await failure(fetcherWith({ allow: ['169.254.0.0/16'] }).get('http://169.254.169.254/'));
    expect(err.kind).toBe('blocked');
  });

  it('refuses a redirect to a private address, and follows one to an allowed address', async () => {
    const f = fetcherWith();
    replay.override('/go-private', { status: 302, headers: { location: 'http://10.1.2.3/internal' } });
    const err = await failure(f.get(`${replay.url}/go-private`));
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain('10.1.2.3');

    replay.override('/go-board', { status: 301, headers: { location: BOARD } });
    const res = await f.get(`${replay.url}/go-board`);
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${replay.url}${BOARD}`);
  });

  it('re-checks the port on every redirect: an allow-listed 127.0.0.1:<port> cannot redirect to another loopback port', async () => {
    // A second real loopback service the redirect tries to reach (think Redis or PostgreSQL on loopback).
    const other = await startReplayServer({ fixturesDir: FIXTURES });
    try {
      const port = new URL(replay.url).port;
      const otherPort = new URL(other.url).port;
      const f = fetcherWith({ allow: [`127.0.0.1:${port}`] });
      expect((await f.get(`${replay.url}${BOARD}`)).status).toBe(200);

      replay.override('/go-other-port', { status: 302, headers: { location: `http://127.0.0.1:${otherPort}${BOARD}` } });
      const literal = await failure(f.get(`${replay.url}/go-other-port`));
      expect(literal.kind).toBe('blocked');
      expect(literal.message).toContain(`not ${otherPort}`);
      // By hostname, the refusal happens in the connect-time lookup, which knows the port too.
      replay.override('/go-other-name', { status: 302, headers: { location: `http://localhost:${otherPort}${BOARD}` } });
      expect((await failure(f.get(`${replay.url}/go-other-name`))).kind).toBe('blocked');
      expect(other.requests).toHaveLength(0);

      // The same port stays reachable through a redirect, and a port-less entry still admits every port.
      replay.override('/go-same-port', { status: 301, headers: { location: `http://127.0.0.1:${port}${BOARD}` } });
      expect((await f.get(`${replay.url}/go-same-port`)).status).toBe(200);
      expect((await fetcherWith({ allow: ['127.0.0.1/32'] }).get(`${replay.url}/go-other-port`)).status).toBe(200);
      expect(other.requests).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['NAT64', 'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/'],
    ['RFC 6145', 'http://[::ffff:0:a9fe:a9fe]/latest/meta-data/'],
    ['6to4', 'http://[2002:a9fe:a9fe::1]/'],
  ])('refuses the metadata address in its %s spelling under a broad IPv6 allow-list', async (_form, url) => {
    const err = await failure(fetcherWith({ allow: ['::/0'] }).get(url));
    expect(err.kind).toBe('blocked');
    expect(err.message).toContain('cloud metadata');
  });

  it(`gives up after ${MAX_REDIRECTS} redirects`, async () => {
    replay.override('/loop', { status: 307, headers: { location: '/loop' } });
    const err = await failure(fetcherWith().get(`${replay.url}/loop`));
    expect(err.kind).toBe('redirect');
    expect(replay.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('refuses URLs that are not http(s), not absolute, or carry credentials', async () => {
    const f = fetcherWith();
    expect((await failure(f.get('ftp://example.com/jobs.json'))).kind).toBe('bad_url');
    expect((await failure(f.get('file:///etc/passwd'))).kind).toBe('bad_url');
    expect((await failure(f.get('/relative/path'))).kind).toBe('bad_url');
    expect((await failure(f.get(`http://user:secret@127.0.0.1:${new URL(replay.url).port}/`))).kind).toBe('bad_url');
  });
});

describe('caps', () => {
  it('aborts a body larger than maxBytes (announced by Content-Length)', async () => {
    const err = await failure(fetcherWith({ maxBytes: 1024 }).get(`${replay.url}/posting-api/job-board/DeepL`));
    expect(err.kind).toBe('too_large');
  });

  it('aborts a gzip body whose decoded size passes maxBytes while streaming', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(512 * 1024));
    expect(bomb.length).toBeLessThan(4096);
    replay.override('/bomb', { status: 200, body: bomb, headers: { 'content-encoding': 'gzip' } });
    const err = await failure(fetcherWith({ maxBytes: 64 * 1024 }).get(`${replay.url}/bomb`));
    expect(err.kind).toBe('too_large');
  });

  it('decodes a gzip answer', async () => {
    replay.override('/gz', { status: 200, body: zlib.gzipSync(Buffer.from('{"ok":true}')), headers: { 'content-encoding': 'gzip' } });
    const res = await fetcherWith().get(`${replay.url}/gz`);
    expect(res.body.toString()).toBe('{"ok":true}');
    expect(replay.requests[0]?.headers['accept-encoding']).toBe('gzip');
    expect(replay.requests[0]?.headers['user-agent']).toBe('jobledger-test/0.1');
  });

  it('times out a slow answer, and a body that stalls mid-way', async () => {
    const f = fetcherWith({ timeoutMs: 200 });
    replay.override('/slow', { status: 200, body: '{}', delayMs: 2_000 });
    let started = Date.now();
    expect((await failure(f.get(`${replay.url}/slow`))).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);

    replay.override('/stall', { status: 200, body: '{"jobs":[]}', bodyDelayMs: 2_000 });
    started = Date.now();
    expect((await failure(f.get(`${replay.url}/stall`))).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('retries and statuses', () => {
  it('retries a 503 and returns the answer that follows, counting requests', async () => {
    replay.override(BOARD, { status: 503, body: 'busy', times: 2 });
    const res = await fetcherWith({ retries: 3, backoffMs: 5 }).get(`${replay.url}${BOARD}`);
    expect(res.status).toBe(200);
    expect(replay.requests).toHaveLength(3);
  });

  it('retries a cut connection as a network error', async () => {
    replay.override(BOARD, { destroySocket: true, times: 1 });
    const res = await fetcherWith({ retries: 1, backoffMs: 5 }).get(`${replay.url}${BOARD}`);
    expect(res.status).toBe(200);
    expect(replay.requests).toHaveLength(2);

    replay.override('/cut', { destroySocket: true });
    expect((await failure(fetcherWith({ retries: 1, backoffMs: 5 }).get(`${replay.url}/cut`))).kind).toBe('network');
  });

  it("honours a 429's Retry-After, within the cap", async () => {
    replay.override(BOARD, { status: 429, headers: { 'retry-after': '1' }, times: 1 });
    const f = fetcherWith({ retries: 1, backoffMs: 0 }, { retryAfterCapMs: 300 });
    const started = Date.now();
    const res = await f.get(`${replay.url}${BOARD}`);
    const waited = Date.now() - started;
    expect(res.status).toBe(200);
    // backoffMs is 0, so any wait comes from Retry-After (1 s), capped at 300 ms for the test.
    expect(waited).toBeGreaterThanOrEqual(280);
    expect(waited).toBeLessThan(900);
  });

  it('throws http_status after the last retry, logging each retry without headers', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = pino({ level: 'warn' }, sink);
    replay.override('/down', { status: 500, body: 'oops' });
    const f = fetcherWith({ retries: 2, backoffMs: 2 }, undefined, log);
    const err = await failure(f.get(`${replay.url}/down?token=abc`, { headers: { 'if-none-match': '"secret-etag"' } }));
    expect(err.kind).toBe('http_status');
    expect(err.status).toBe(500);
    expect(replay.requests).toHaveLength(3);
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toHaveLength(2);
    expect(entries.map((e) => [e['level'], e['status'], e['attempt']])).toEqual([
      [40, 500, 1],
      [40, 500, 2],
    ]);
    expect(entries[0]?.['url']).toBe(`${replay.url}/down?token=abc`);
    expect(lines.join('')).not.toContain('secret-etag');
  });

  it('throws http_status for a 404 unless the caller accepts it', async () => {
    const f = fetcherWith({ retries: 2 });
    const err = await failure(f.get(`${replay.url}/posting-api/job-board/no-such-board`));
    expect(err.kind).toBe('http_status');
    expect(err.status).toBe(404);
    expect(replay.requests).toHaveLength(1);

    const res = await f.get(`${replay.url}/posting-api/job-board/no-such-board`, { acceptStatuses: [404, 410] });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toHaveProperty('success', false);
  });

  it('returns 304 to a conditional request', async () => {
    const f = fetcherWith();
    const first = await f.get(`${replay.url}${BOARD}`);
    const etag = first.headers['etag'];
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const second = await f.get(`${replay.url}${BOARD}`, { headers: { 'If-None-Match': etag! } });
    expect(second.status).toBe(304);
    expect(second.body.length).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('POST (Workday job search)', () => {
  const SEARCH = '/workday/gdit.wd5.myworkdayjobs.com/wday/cxs/gdit/External_Career_Site/jobs';

  it('sends the JSON body with its content type under the same guard', async () => {
    const f = fetcherWith();
    const res = await f.post(`${replay.url}${SEARCH}`, { limit: 20, offset: 0 });
    expect(res.status).toBe(200);
    expect(replay.requests[0]).toMatchObject({ method: 'POST', path: SEARCH });
    expect(replay.requests[0]!.headers['content-type']).toBe('application/json');
    expect((await failure(fetcherWith({ allow: [] }).post(`${replay.url}${SEARCH}`, {}))).kind).toBe('blocked');
  });

  it('does not follow a redirect of a POST', async () => {
    replay.override('/moved-search', { status: 307, body: '', headers: { location: `${replay.url}${SEARCH}` } });
    const err = await failure(fetcherWith().post(`${replay.url}/moved-search`, {}));
    expect([err.kind, err.status]).toEqual(['redirect', 307]);
    expect(replay.requests).toHaveLength(1);
  });
});
