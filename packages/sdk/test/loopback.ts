/**
 * A loopback HTTP proxy in front of a real jobledger, for the SDK's tests of what the network does
 * to a client: it forwards every request unchanged unless a fault is queued for its path (an answer
 * of its own, e.g. 503 with Retry-After, or a body cut after some bytes), and counts requests.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A fault for the next request to a path: answer `status` instead, or forward and cut the body after `cutAfterBytes`. */
export type Fault = { status: number; headers?: Record<string, string>; body?: unknown } | { cutAfterBytes: number };

export interface FaultProxy {
  url: string;
  /** Requests seen per path (without query). */
  hits(path: string): number;
  /** Queue faults for the next requests to `path`, in order. */
  inject(path: string, ...faults: Fault[]): void;
  close(): Promise<void>;
}

export async function startFaultProxy(upstreamPort: number): Promise<FaultProxy> {
  const queued = new Map<string, Fault[]>();
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const fault = queued.get(path)?.shift();
    if (fault && 'status' in fault) {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(JSON.stringify(fault.body ?? { error: 'unavailable', message: 'injected by the test proxy', docs: 'https://docs.example.test/errors#unavailable' }));
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      if (!fault) return void up.pipe(res);
      let sent = 0;
      up.on('data', (chunk: Buffer) => {
        const room = fault.cutAfterBytes - sent;
        if (room <= 0) return;
        res.write(chunk.subarray(0, room));
        sent += Math.min(room, chunk.length);
        if (sent >= fault.cutAfterBytes) {
          up.destroy();
          res.socket?.destroy();
        }
      });
      up.on('end', () => res.end());
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: (path) => counts.get(path) ?? 0,
    inject: (path, ...faults) => queued.set(path, [...(queued.get(path) ?? []), ...faults]),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
