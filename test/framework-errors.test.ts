/**
 * Refusals below the routes answer in the error catalogue's shape (docs/errors.md): what Node.js's
 * HTTP parser refuses (sent over raw TCP, since an HTTP client cannot send it), what the router
 * refuses, a missing Host, a bad CORS preflight. Every answer is `{error, message, docs}` JSON with a
 * documented code, no framework text (`FST_`) and no echo of the raw input.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/domain/errors.ts';
import { TEST_DOCS_URL, useTestApp } from './helpers/app.ts';

/** A string no answer may contain: it is put in every hostile input. */
const MARKER = 'zqx7marker';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after answering. */
  closed: boolean;
}

describe('framework-level refusals', () => {
  const ctx = useTestApp({ key: false });
  let port: number;

  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });

  /** Send bytes over a fresh TCP connection and read one HTTP/1.1 answer. */
  function raw(request: string | Buffer, onConnected?: () => void): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', onConnected);
      let data = Buffer.alloc(0);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`no complete answer to ${JSON.stringify(String(request).slice(0, 80))}: ${data.toString()}`));
      }, 10_000);
      let answered = false;
      let closed = false;
      /** Once a whole answer is in, wait a moment for the server to close the connection, then resolve. */
      const complete = () => {
        if (answered) return;
        const text = data.toString('utf8');
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return;
        const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const body = text.slice(split + 4);
        if (headers['content-length'] !== undefined && Buffer.byteLength(body) < Number(headers['content-length'])) return;
        answered = true;
        clearTimeout(timer);
        const settle = () => {
          socket.destroy();
          resolve({ status: Number(statusLine!.split(' ')[1]), headers, body, closed });
        };
        if (closed) settle();
        else {
          const wait = setTimeout(settle, 1000);
          socket.once('close', () => {
            clearTimeout(wait);
            settle();
          });
        }
      };
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        complete();
      });
      socket.on('end', () => {
        closed = true;
        complete();
      });
      socket.on('close', () => {
        closed = true;
        complete();
      });
      socket.on('error', () => undefined);
      if (request.length > 0) socket.write(request);
    });
  }

  /** The catalogue's shape, the code's documented status, nothing of the framework or the input. */
  function expectCatalogue(answer: { status: number; headers: Record<string, string>; body: string }, code: keyof typeof ERROR_STATUS, what: string) {
    expect(answer.status, what).toBe(ERROR_STATUS[code]);
    expect(answer.headers['content-type'], what).toMatch(/^application\/json/);
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    expect(Object.keys(body).sort(), what).toEqual(['docs', 'error', 'message', 'status', 'title', 'type']);
    expect(body, what).toMatchObject({ error: code, docs: `${TEST_DOCS_URL}#${code}`, type: `${TEST_DOCS_URL}#${code}`, status: ERROR_STATUS[code] });
    expect(typeof body.message).toBe('string');
    expect(answer.body, what).not.toContain('FST_');
    expect(answer.body, what).not.toContain(MARKER);
    return body;
  }

  it.each([
    ['a URL over 16 KiB', `GET /public/jobs?q=${MARKER}${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, 'request_headers_too_large'],
    ['headers over 16 KiB', `GET /public/jobs HTTP/1.1\r\nHost: x\r\nX-Pad: ${MARKER}${'a'.repeat(17 * 1024)}\r\n\r\n`, 'request_headers_too_large'],
    ['a request line without a target or version', `GET${MARKER}\r\n\r\n`, 'bad_request'],
    ['binary garbage', `\u0000\u0001\u0002${MARKER}\r\n\r\n`, 'bad_request'],
    ['a target that is not a path', `GET ${MARKER} HTTP/1.1\r\nHost: x\r\n\r\n`, 'bad_request'],
    ['a header name with a space', `GET /public/jobs HTTP/1.1\r\nHost: x\r\nBad ${MARKER}: y\r\n\r\n`, 'bad_request'],
    ['an HTTP/2 preface on the HTTP/1.1 port', `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n${MARKER}`, 'bad_request'],
    ['Content-Length with Transfer-Encoding (request smuggling)', `GET /public/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`, 'bad_request'],
    ['a malformed chunk size', `POST /public/jobs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${MARKER}\r\n`, 'bad_request'],
    ['an HTTP/1.1 request without Host', `GET /public/jobs?q=${MARKER} HTTP/1.1\r\n\r\n`, 'bad_request'],
    ['a path with a broken percent escape', `GET /public/jobs/${MARKER}%zz HTTP/1.1\r\nHost: x\r\n\r\n`, 'bad_request'],
    ['a path with truncated UTF-8 percent escapes', `GET /v1/companies/${MARKER}%E0%A4%A HTTP/1.1\r\nHost: x\r\n\r\n`, 'bad_request'],
    ['a job id over 100 characters', `GET /public/jobs/${MARKER}${'a'.repeat(150)} HTTP/1.1\r\nHost: x\r\n\r\n`, 'not_found'],
    ['a company slug over 100 characters on the keyed surface', `GET /v1/companies/${MARKER}${'b'.repeat(150)} HTTP/1.1\r\nHost: x\r\n\r\n`, 'not_found'],
  ] as const)('answers %s in the catalogue', async (what, request, code) => {
    const answer = await raw(request);
    const body = expectCatalogue(answer, code, what);
    expect((body.message as string).length).toBeGreaterThan(10);
  });

  it('names what the parser refused, and closes the connection as Node.js does', async () => {
    const smuggled = await raw(`GET /public/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    expect(JSON.parse(smuggled.body).message).toContain('Transfer-Encoding');
    expect(smuggled.headers.connection).toBe('close');
    expect(smuggled.closed).toBe(true);
    const header = await raw(`GET /public/jobs HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n`);
    expect(JSON.parse(header.body).message).toContain('header');
  });

  it('answers a request that does not arrive in time with 408 request_timeout', async () => {
    // Node.js raises this clientError after 60 s of waiting for headers; the test raises the same error
    // on a real server-side socket instead of waiting a minute.
    const accepted = new Promise<net.Socket>((resolve) => ctx.app.server.once('connection', resolve));
    const answer = raw(`GET /public/jobs HTTP/1.1\r\nHost: x\r\nX-Slow: ${MARKER}`);
    const socket = await accepted;
    await new Promise((r) => setTimeout(r, 100));
    ctx.app.server.emit('clientError', Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    expectCatalogue(await answer, 'request_timeout', 'slow request');
  });

  it('documents every code of the catalogue, with its status, in docs/errors.md', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../docs/errors.md'), 'utf8');
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(doc, code).toContain(`| ${status} | <a id="${code}"></a>\`${code}\` |`);
    }
  });

  it('keeps serving on the same port after every refusal', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
  });

  it('answers OPTIONS that is no CORS preflight with 405 in the catalogue, and a real preflight with 204', async () => {
    for (const headers of [{}, { Origin: 'https://app.example' }, { 'Access-Control-Request-Method': 'GET' }]) {
      const res = await fetch(`http://127.0.0.1:${port}/public/jobs?q=${MARKER}`, { method: 'OPTIONS', headers });
      const answer = { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
      const body = expectCatalogue(answer, 'method_not_allowed', JSON.stringify(headers));
      expect(body.message).toBe('"/public/jobs" answers GET and HEAD only, not OPTIONS.');
      expect(answer.headers.allow).toBe('GET, HEAD');
    }
    const preflight = await fetch(`http://127.0.0.1:${port}/public/jobs`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('quotes the path it could not route, cut to 200 characters', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/public/nothing/${'x'.repeat(300)}`);
    const body = expectCatalogue({ status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() }, 'not_found', 'unknown path');
    expect(body.message).toBe(`No endpoint answers GET ${JSON.stringify(`/public/nothing/${'x'.repeat(300)}`.slice(0, 200) + '…')}.`);
  });
});
