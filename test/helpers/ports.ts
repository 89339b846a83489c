/**
 * A TCP port on 127.0.0.1 that was free a moment ago: the kernel picks one for a listener on port 0,
 * which is then closed. Used by the tests (and the benchmark) to start servers and embedded
 * PostgreSQL instances side by side. Rejects when no loopback listener can be opened.
 */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
