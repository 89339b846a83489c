/**
 * The HTTP floor: a bare `node:http` server answering every request with the same bytes (status,
 * content type, body) the service answered for one shape, so "service / floor" is what routing,
 * validation, the database round trips and serialization cost on top of Node.js's own HTTP.
 *
 * Environment: PORT; BENCH_BODY_FILE (the body bytes); BENCH_CONTENT_TYPE. Prints `listening <port>`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = readFileSync(process.env.BENCH_BODY_FILE ?? '');
const contentType = process.env.BENCH_CONTENT_TYPE ?? 'application/json; charset=utf-8';
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': contentType, 'content-length': body.length });
  response.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`listening ${process.env.PORT}\n`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
