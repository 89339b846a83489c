/**
 * The acceptance fuzz of issue 13: thousands of malformed requests of every class, sent over loopback
 * to the real app, seeded so a failure replays. Classes: hostile values of
 * every declared query parameter of every route, full-text queries built from web-search operators,
 * hostile path ids and slugs, unknown paths, other methods with bodies, odd Authorization headers, and
 * (over raw TCP, which no HTTP client sends) malformed request lines, headers and framing.
 *
 * Every answer must be below 500; every non-2xx (bar 301 and 304) must be the catalogue's JSON
 * `{error, message, docs}` with no framework text (`FST_`), no database text, and no echo of the input
 * beyond the value the message quotes (cut to 80 characters).
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../src/http/app.ts';
import { bearer, TEST_DOCS_URL, useTestApp } from './helpers/app.ts';

/** Seed of the generator; a failure names the request, and this seed replays the whole run. */
const SEED = 0x13_0d_f5;

/** mulberry32: a small seeded generator (deterministic runs without a dependency). */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

/** Put in every hostile input, so an echo can be recognised. */
const MARKER = 'zqx7marker';

/** Text a database or driver error would carry; none may reach a client. */
const DATABASE_TEXT = /tsquery|syntax error|relation "|column "|invalid input syntax|invalid byte sequence|violates|SQLSTATE|pg_|postgres|kysely|\bat .*\.ts:\d+/i;

/** Values that have broken parsers somewhere: NUL, operators, prototype names, numbers, unicode. */
const HOSTILE_VALUES = [
  '\u0000', `a\u0000${MARKER}`, `${MARKER}\u0000`, '%00', '\u0001\u0002\u001f', '\u007f', '\uffff', '\ufffd', '\ud800', '😀', 'é', 'İ', 'ß',
  'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__',
  '', ' ', ',', ',,,,', ' , ', '-', '--', '-'.repeat(33), '- '.repeat(40), '-(-('.repeat(30), '"', '""', '"-"-"'.repeat(30), '!!!', 'or', 'or or or', '&|!:*',
  '1; SELECT 1', "' OR 1=1 --", '$$', '\\', '%', '%zz', '%%', '${x}', '{{x}}', '<script>', '../../etc/passwd',
  '-1', '0', '1e999', '-1e999', 'NaN', 'Infinity', '0x10', '1.5', '9'.repeat(40), '100001', '2026-02-30', '2026-13-01', '0000-00-00', '2026-11-01T25:00:00Z',
  'true', 'TRUE', 'maybe', 'null', 'undefined', '[]', '{}', 'closed', 'any', 'all', 'staffing', 'expired_upstream', 'employer_closed',
  `${MARKER}${'x'.repeat(120)}`, `${MARKER} ${'word '.repeat(60)}`, `"${MARKER} ${'-a '.repeat(50)}`, `${MARKER}${'é'.repeat(600)}`,
];

/** Characters full-text fuzzing draws from: the web-search syntax, separators and letters. */
const SEARCH_ALPHABET = ['-', '-', '-', '"', '"', ' ', ' ', ' ', '(', ')', '!', '&', '|', ':', '*', "'", '\\', 'or', ' or ', 'and', 'a', 'b', 'x', 'é', '1', '<', '>', ',', '.'];

/** Percent-encoded as a client would; a lone surrogate (which UTF-8 cannot hold) as the bytes a careless client sends. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

/** Raw escapes sent verbatim in a query value: broken, overlong or invalid UTF-8. */
const RAW_ESCAPES = ['%zz', '%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '%FF%FE', '%00', '%u0041'];

interface Answer {
  /** A response to HEAD: headers only. */
  bodiless?: boolean;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('hostile requests (issue 13 acceptance fuzz)', () => {
  // The migrated ledger without rows: what breaks on input breaks while the query is parsed and planned,
  // and empty pages keep a few thousand requests within seconds.
  const s = useTestApp({ key: 'unlimited', app: { contract: false, keylessBurst: 0 } });
  let port: number;
  let routes: RegisteredRoute[];
  const agent = new http.Agent({ keepAlive: true, maxSockets: 6 });
  const rng = generator(SEED);
  const failures: string[] = [];
  let sent = 0;
  const classes = new Map<string, number>();

  beforeAll(async () => {
    await s.app.listen({ port: 0, host: '127.0.0.1' });
    port = (s.app.server.address() as AddressInfo).port;
    routes = s.app.registeredRoutes.filter((r) => r.method === 'GET');
  });

  /** Judge one answer; failures are collected so one run reports them all. */
  function judge(what: string, answer: Answer, input: string, maxEcho: number): void {
    const problems: string[] = [];
    if (answer.status >= 500) problems.push(`status ${answer.status}`);
    const error = answer.status >= 400 || (answer.status >= 300 && answer.status !== 301 && answer.status !== 304);
    if (error) {
      if (!String(answer.headers['content-type']).startsWith('application/json')) problems.push(`content-type ${String(answer.headers['content-type'])}`);
      let body: Record<string, unknown> | undefined;
      try {
        if (!answer.bodiless) body = JSON.parse(answer.body) as Record<string, unknown>;
      } catch {
        problems.push('body is not JSON');
      }
      if (body) {
        for (const key of ['error', 'message', 'docs']) if (typeof body[key] !== 'string') problems.push(`no ${key}`);
        if (typeof body.docs === 'string' && !body.docs.startsWith(`${TEST_DOCS_URL}#`)) problems.push('docs link');
        // The message may quote the value, cut to 80 characters (a path a 404 names: 200): never more of it.
        if (input.length > maxEcho && answer.body.includes(input.slice(0, maxEcho + 1))) problems.push(`echoes more than ${maxEcho} characters of the input`);
        if (typeof body.message === 'string' && body.message.length > 400) problems.push(`message of ${body.message.length} characters`);
      }
    }
    if (answer.body.includes('FST_')) problems.push('framework text');
    if (error && DATABASE_TEXT.test(answer.body)) problems.push('database text');
    if (problems.length > 0) failures.push(`${what}: ${problems.join(', ')} -> ${answer.status} ${answer.body.slice(0, 200)}`);
  }

  /** An HTTP request through node:http (anything a client library can send). */
  function send(options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, agent, method: options.method ?? 'GET', path: options.path, headers: options.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(20_000, () => req.destroy(new Error(`no answer to ${options.path.slice(0, 100)}`)));
      req.end(options.body);
    });
  }

  /** Bytes over a fresh TCP connection; the first answer read until the server closes or it is complete. */
  function raw(bytes: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let data = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no answer over TCP to ${JSON.stringify(bytes.slice(0, 80))}`));
      }, 15_000);
      const finish = () => {
        const text = data.toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return false;
        const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const body = text.slice(split + 4);
        const bodiless = bytes.startsWith('HEAD ') || /^HTTP\/1\.[01] (1\d\d|204|304)/.test(statusLine!);
        if (!bodiless && headers['content-length'] !== undefined && Buffer.byteLength(body) < Number(headers['content-length'])) return false;
        clearTimeout(timer);
        socket.destroy();
        resolve({ status: Number(statusLine!.split(' ')[1]), headers, body, bodiless });
        return true;
      };
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        finish();
      });
      socket.on('close', () => {
        if (!finish()) {
          clearTimeout(timer);
          reject(new Error(`connection closed without an answer to ${JSON.stringify(bytes.slice(0, 80))}`));
        }
      });
      socket.on('error', () => undefined);
      socket.write(bytes);
    });
  }

  /** Run `requests` with a few in flight, judging each. */
  async function run(kind: string, requests: Array<{ what: string; input: string; go: () => Promise<Answer> }>, maxEcho = 80): Promise<void> {
    classes.set(kind, (classes.get(kind) ?? 0) + requests.length);
    let i = 0;
    const worker = async () => {
      while (i < requests.length) {
        const r = requests[i++]!;
        sent++;
        try {
          judge(`${kind} ${r.what}`, await r.go(), r.input, maxEcho);
        } catch (error) {
          failures.push(`${kind} ${r.what}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
  }

  /**
   * What keeps an accepted request's answer small: `limit=1` on listings, and on the export a resume
   * point after every id (the query is still planned and run with the input, it just finds nothing).
   */
  function pageBound(base: string, name: string): string {
    if (base === '/v1/export') return name === 'after' ? '' : '&after=ffffffff-ffff-ffff-ffff-ffffffffffff';
    return name === 'limit' ? '' : '&limit=1';
  }

  /** The text a percent-encoded value stands for, as far as it decodes (for the echo check). */
  function decodeLoosely(value: string): string {
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }

  /** A concrete path for a route pattern, path parameters filled with `fill`. */
  function pathOf(route: RegisteredRoute, fill: string): string {
    return route.url.replace(/:(\w+)/g, () => encode(fill));
  }

  it('answers every malformed request in the catalogue, never with a 5xx', async () => {
    const keyed = bearer(s.key);
    const withKey = (url: string) => (url.startsWith('/v1/') ? keyed : undefined);

    // 1. Every declared parameter of every route, with every hostile value (and a random one).
    const params: Array<{ what: string; input: string; go: () => Promise<Answer> }> = [];
    for (const route of routes.filter((r) => r.query)) {
      const base = pathOf(route, 'some-slug');
      for (const name of Object.keys(route.query!.params)) {
        // A sample of the hostile values per parameter (all of them on q), and every raw escape.
        const values = name === 'q' ? HOSTILE_VALUES : Array.from({ length: 6 }, () => rng.pick(HOSTILE_VALUES));
        const escapes = name === 'q' ? RAW_ESCAPES : [rng.pick(RAW_ESCAPES), rng.pick(RAW_ESCAPES)];
        for (const value of [...values.map(encode), ...escapes.map((e) => `${MARKER}${e}`)]) {
          const path = `${base}?${name}=${value}${pageBound(base, name)}`;
          params.push({ what: path.slice(0, 160), input: decodeLoosely(value), go: () => send({ path, headers: withKey(base) }) });
        }
      }
    }
    await run('parameter', params);

    // 2. Full-text queries of random operator soup on every route that searches.
    const searching = ['/v1/jobs', '/public/jobs', '/v1/jobs/closed', '/v1/export', '/v1/companies', '/public/companies'];
    const texts: Array<{ what: string; input: string; go: () => Promise<Answer> }> = [];
    for (let n = 0; n < 300; n++) {
      const length = 1 + rng.int(rng.next() < 0.2 ? 200 : 40);
      const value = Array.from({ length }, () => rng.pick(SEARCH_ALPHABET)).join('');
      const base = rng.pick(searching);
      const name = base.includes('compan') ? 'q' : rng.pick(['q', 'title', 'title_exclude', 'description_contains']);
      const path = `${base}?${name}=${encode(value)}${pageBound(base, name)}`;
      texts.push({ what: path.slice(0, 160), input: value, go: () => send({ path, headers: withKey(base) }) });
    }
    await run('full-text', texts);

    // 3. Path ids and slugs, unknown paths, raw percent-escapes the client must not re-encode.
    const paths: Array<{ what: string; input: string; go: () => Promise<Answer> }> = [];
    const rawSegments = ['%00', 'a%00b', '%zz', '%', '%E0%A4%A', '%ED%A0%80', '%C0%AF', '..%2F..%2F', '%2e%2e', '%25', `${MARKER}${'a'.repeat(150)}`, '%FF%FE', '%u0041', '%7F', '%0A', '%0D%0A'];
    for (const route of routes.filter((r) => r.url.includes(':'))) {
      for (const value of Array.from({ length: 25 }, () => rng.pick(HOSTILE_VALUES))) {
        const path = route.url.replace(/:(\w+)/g, () => encode(value));
        paths.push({ what: path.slice(0, 160), input: value, go: () => send({ path, headers: withKey(path) }) });
      }
      for (const segment of rawSegments) {
        const path = route.url.replace(/:(\w+)/g, segment);
        paths.push({ what: path.slice(0, 160), input: segment, go: () => send({ path, headers: withKey(path) }) });
      }
    }
    for (let n = 0; n < 150; n++) {
      const path = `/${rng.pick(['v1', 'public', 'v2', '', 'v1/jobs', 'public/jobs'])}/${encode(rng.pick(HOSTILE_VALUES))}${rng.pick(['', '/', '//', '?x=1', '/..', '/%2e'])}`;
      paths.push({ what: path.slice(0, 160), input: path, go: () => send({ path, headers: withKey(path) }) });
    }
    await run('path', paths, 200);

    // 4. Other methods, with and without bodies, on real and unknown routes.
    const methods: Array<{ what: string; input: string; go: () => Promise<Answer> }> = [];
    for (const route of routes) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) {
        const path = pathOf(route, 'x');
        const body = rng.next() < 0.5 ? `{"q":"${MARKER}"` : undefined;
        methods.push({
          what: `${method} ${path}`,
          input: body ?? '',
          go: () => send({ method, path, headers: { ...withKey(path), ...(body ? { 'content-type': 'application/json' } : {}) }, body }),
        });
      }
    }
    await run('method', methods);

    // 5. Authorization headers of every odd shape on the keyed surface.
    const auths = ['', 'Bearer', 'Bearer ', `Bearer ${MARKER}`, `Basic ${MARKER}`, `Bearer ${'x'.repeat(5000)}`, `Bearer ${s.key.secret}x`, 'Bearer \u00e9', `${s.key.secret.slice(0, -1)}`, 'Bearer null', 'Token abc', ' Bearer  x '];
    const headers: Array<{ what: string; input: string; go: () => Promise<Answer> }> = [];
    for (const route of routes.filter((r) => r.url.startsWith('/v1/'))) {
      for (const authorization of auths) {
        const path = pathOf(route, 'x');
        headers.push({ what: `${path} Authorization: ${authorization.slice(0, 40)}`, input: authorization, go: () => send({ path, headers: { authorization: Buffer.from(authorization, 'latin1').toString('latin1') } }) });
      }
    }
    await run('header', headers);

    // 6. Raw TCP: what no HTTP client sends.
    const tcp: Array<{ what: string; input: string; go: () => Promise<Answer> }> = [];
    const rawRequests = [
      `GET /public/jobs?q=${MARKER}${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\nX-Pad: ${MARKER}${'a'.repeat(17 * 1024)}\r\n\r\n`,
      `GET${MARKER}\r\n\r\n`,
      `\u0000\u0001\u0002${MARKER}\r\n\r\n`,
      `GET ${MARKER} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\nBad ${MARKER}: y\r\n\r\n`,
      `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n${MARKER}`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      `POST /public/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${MARKER}\r\n`,
      `GET /public/jobs?q=${MARKER} HTTP/1.1\r\n\r\n`,
      `GET /public/jobs/${MARKER}%zz HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /public/jobs/a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /public/jobs?q=a\u0000b HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /public/jobs?q=a b HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab`,
      `GET /public/jobs HTTP/9.9\r\nHost: x\r\n\r\n`,
      `GET /public/jobs HTTP/1.1\nHost: x\n\n`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n`,
      `GET /public/jobs HTTP/1.1\r\nHost: x\r\n Folded: header\r\n\r\n`,
      `G\u00c9T /public/jobs HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET http://evil.example/public/jobs HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${MARKER}\u00ff\r\n\r\n`,
      `GET /public/jobs?${'a=1&'.repeat(3000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ];
    for (const bytes of rawRequests) tcp.push({ what: JSON.stringify(bytes.slice(0, 80)), input: bytes, go: () => raw(bytes) });
    for (let n = 0; n < 100; n++) {
      // Random request lines: a method, a target of random bytes, a version.
      const target = Array.from({ length: 1 + rng.int(60) }, () => String.fromCharCode(rng.next() < 0.8 ? 33 + rng.int(94) : rng.int(256))).join('');
      const bytes = `${rng.pick(['GET', 'HEAD', 'POST', 'get', 'G ET', ''])} /${target} ${rng.pick(['HTTP/1.1', 'HTTP/1.0', 'HTTP/2', 'http/1.1', ''])}\r\nHost: x\r\n\r\n`;
      tcp.push({ what: JSON.stringify(bytes.slice(0, 80)), input: bytes, go: () => raw(bytes) });
    }
    await run('raw TCP', tcp);

    agent.destroy();
    // The service is still there.
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    console.log(`fuzz: ${sent} requests (${[...classes].map(([k, n]) => `${k} ${n}`).join(', ')}), ${failures.length} failures`);
    expect(sent).toBeGreaterThanOrEqual(2000);
    expect(failures.slice(0, 40)).toEqual([]);
  }, 180_000);

  it('answers each reproduced defect with its documented code (issue 13: defects 4, 5, 7 and the last session\'s finds)', async () => {
    const get = async (path: string) => {
      const res = await s.app.inject({ url: path, headers: path.startsWith('/v1/') ? bearer(s.key) : {} });
      return { status: res.statusCode, body: res.json() as { error?: string; message?: string }, headers: res.headers };
    };
    // Defect 4: NUL in ids, slugs and every string parameter is a 400 before SQL.
    for (const path of ['/public/jobs/%00', '/v1/jobs/a%00b', '/public/companies/%00', '/v1/companies/x%00', '/public/companies?q=%00', '/v1/companies?q=a%00b',
      '/public/companies?country=%00', '/v1/companies?org_type=a%00', '/v1/jobs?city=%00', '/v1/jobs/closed?company=%00', '/v1/export?q=%00', '/v1/changes?since=%00']) {
      const answer = await get(path);
      expect([answer.status, answer.body.error], path).toEqual([400, 'bad_request']);
      expect(answer.body.message, path).toContain('NUL');
    }
    // Defect 5: what websearch_to_tsquery cannot plan is normalised or refused, never a 500, and the
    // export refuses before its 200 starts.
    for (const path of ['/v1/jobs?q=' + '-'.repeat(33), '/v1/export?q=' + '-'.repeat(33), '/public/jobs?title=' + '- '.repeat(40), '/v1/jobs?q=' + 'a'.repeat(501)]) {
      expect((await get(path)).body.error, path).toBe('bad_query');
    }
    for (const path of ['/v1/jobs?q=' + '-'.repeat(33) + 'engineer', '/v1/jobs?description_contains=' + encodeURIComponent('-(-('.repeat(30) + 'x'), '/v1/jobs?title_exclude=' + encodeURIComponent('"-"-"'.repeat(30) + 'intern')]) {
      expect((await get(path)).status, path).toBe(200);
    }
    // Defect 7: bad_offset quotes the value like every other 422.
    expect((await get('/v1/companies?offset=1;%20SELECT%201')).body.message).toMatch(/^The value "1; SELECT 1" of offset is not allowed/);
    // Prototype names are values like any other: a 422, never accepted.
    for (const path of ['/v1/companies?source_type=constructor', '/public/companies?source_type=__proto__', '/v1/jobs?source_type=toString', '/v1/jobs/closed?closed_reason=constructor']) {
      expect((await get(path)).status, path).toBe(422);
    }
  });
});
