/**
 * A loopback HTTP server standing in for a public agency's API on its real paths, for the agency
 * connectors' replay tests: a test sets the answer of each path (and query), the server answers with a
 * content-hash ETag and 304 to a matching `If-None-Match`, records every request with its headers, and
 * plays each failure form a crawl must survive (5xx, a hang past the client's time limit, an HTML error
 * page, an empty body, a truncated JSON body).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';

/** One answer: JSON (`json`), or a raw `body` with its type and status. */
export interface Answer {
  status?: number;
  json?: unknown;
  body?: string;
  type?: string;
  /** Never answer (the client's time limit ends the request). */
  hang?: boolean;
}

/** The failure forms every connector test plays; each must leave the ledger untouched. */
export const FAILURES: Record<string, Answer> = {
  '500': { status: 500, body: '{"message":"Internal Server Error"}', type: 'application/json' },
  timeout: { hang: true },
  'HTML error page': { status: 200, body: '<!doctype html><html><head><title>Wartungsarbeiten</title></head><body><h1>Service unavailable</h1></body></html>', type: 'text/html' },
  empty: { status: 200, body: '', type: 'application/json' },
  malformed: { status: 200, body: '{"items": [{"id": "trunc', type: 'application/json' },
};

export interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  status: number;
  body: string;
}

/** The server: `set(pathWithQuery, answer)`; unknown paths answer 404 JSON. */
export class AgencyServer {
  readonly answers = new Map<string, Answer>();
  readonly hits: Hit[] = [];
  base = '';
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => this.answer(req, res, body));
  });

  private answer(req: http.IncomingMessage, res: http.ServerResponse, requestBody: string): void {
    const url = req.url ?? '/';
    const found = this.answers.get(url) ?? this.answers.get(url.split('?')[0]!);
    const send = (status: number, body: string, headers: Record<string, string>) => {
      this.hits.push({ method: req.method ?? 'GET', url, headers: req.headers, status, body: requestBody });
      res.writeHead(status, headers);
      res.end(body);
    };
    if (!found) return send(404, '{"message":"not found"}', { 'content-type': 'application/json' });
    if (found.hang) {
      this.hits.push({ method: req.method ?? 'GET', url, headers: req.headers, status: 0, body: requestBody });
      this.hanging.add(res);
      return;
    }
    const body = found.json !== undefined ? JSON.stringify(found.json) : (found.body ?? '');
    const type = found.type ?? 'application/json; charset=utf-8';
    const status = found.status ?? 200;
    if (status !== 200) return send(status, body, { 'content-type': type });
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) return send(304, '', { etag });
    send(200, body, { etag, 'content-type': type });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  set(pathWithQuery: string, answer: Answer): void {
    this.answers.set(pathWithQuery, answer);
  }

  /** Requests since index `from` of {@link hits}. */
  since(from: number): Hit[] {
    return this.hits.slice(from);
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
