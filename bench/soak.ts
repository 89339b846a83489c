/**
 * A memory soak (a measurement, never a test): `npm start`'s serving (its start script, i.e.
 * `jobledger serve --demo` with the same Node.js flags, on the embedded PostgreSQL in a fresh data
 * directory, crawl worker and report refresher included) under a steady request rate, with the server
 * process's RSS sampled from /proc every few seconds.
 *
 *   node bench/soak.ts [--seconds 180] [--rate 50] [--connections 8] [--sample 5]
 *
 * The request mix walks the keyed and keyless surfaces: listings with and without filters, full text,
 * descriptions, cursors, single jobs, companies, facets, providers, reports, the change feeds. The
 * keyless limit is turned off (JOBLEDGER_KEYLESS_BURST=0) and six `scale` keys share the keyed load,
 * so every request reaches the data path instead of stopping at a 429. Extra server flags go through
 * SOAK_NODE_OPTIONS (e.g. `--heapsnapshot-signal=SIGUSR2` to inspect what the heap holds).
 *
 * Prints one line per sample (seconds since the load started, RSS MiB) and a summary: RSS when
 * serving began, at the peak, at the end of the load, status counts and throughput.
 */
import { spawn, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon, { type Request } from 'autocannon';
import { freePort } from '../test/helpers/ports.ts';

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../src/main/cli.ts');
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '180' },
    rate: { type: 'string', default: '50' },
    connections: { type: 'string', default: '8' },
    sample: { type: 'string', default: '5' },
  },
});
const SECONDS = Number(args.seconds);
const RATE = Number(args.rate);
const SAMPLE_MS = Number(args.sample) * 1000;

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round((kb / 1024) * 10) / 10;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-soak-'));
await chmod(dataDir, 0o755);
const port = await freePort();
const env: Record<string, string | undefined> = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  JOBLEDGER_DATA_DIR: dataDir,
  JOBLEDGER_EMBEDDED_PG_PORT: String(await freePort()),
  JOBLEDGER_KEYLESS_BURST: '0',
  CI: 'true',
  NODE_OPTIONS: process.env.SOAK_NODE_OPTIONS ?? '',
};
delete env.DATABASE_URL;
delete env.REDIS_URL;

// The server runs exactly as `npm start` runs it: the start script's words after `node`.
const startScript = (JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
const startArgs = startScript.split(/\s+/).slice(1).map((word) => (word.endsWith('.ts') ? path.resolve(import.meta.dirname, '..', word) : word));
const server = spawn(process.execPath, startArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
let head = '';
const keep = (chunk: Buffer) => {
  if (head.length < 2_000_000) head += chunk.toString();
};
server.stdout.on('data', keep);
server.stderr.on('data', keep);
const stop = async () => {
  if (server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
  await rm(dataDir, { recursive: true, force: true });
};

try {
  const deadline = Date.now() + 600_000;
  while (!/Bearer (jl_\S+)"/.test(head)) {
    if (server.exitCode !== null) throw new Error(`serve exited:\n${head.slice(-4000)}`);
    if (Date.now() > deadline) throw new Error('serve did not come up in 10 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
  const keys = [/Bearer (jl_[a-z2-9]{8}_[A-Za-z0-9_-]{43})/.exec(head)![1]!];
  for (let i = 0; i < 5; i++) {
    const { stdout } = await run(process.execPath, [CLI, 'keys', 'create', '--plan', 'scale', '--name', `soak ${i}`], { env: { ...env, LOG_LEVEL: 'warn', NODE_OPTIONS: '' } });
    keys.push(/secret \(shown once\): (\S+)/.exec(stdout)![1]!);
  }
  const base = `http://127.0.0.1:${port}`;
  const auth = { Authorization: `Bearer ${keys[0]}` };
  const jobs = (await (await fetch(`${base}/v1/jobs?limit=200`, { headers: auth })).json()) as { data: Array<{ id: string }>; next_cursor: string | null };
  const companies = (await (await fetch(`${base}/v1/companies?limit=100`, { headers: auth })).json()) as { data: Array<{ slug: string }> };
  const ids = jobs.data.map((j) => j.id);
  const slugs = companies.data.map((c) => c.slug);

  const words = ['engineer', 'manager', 'sales', 'nurse', 'data', 'analyst', 'python', 'remote', 'senior', 'designer'];
  const countries = ['US', 'DE', 'GB', 'FR', 'CA', 'NL', 'IN', 'ES'];
  const paths: Array<{ path: string; keyed: boolean }> = [];
  for (let i = 0; i < 400; i++) {
    const w = words[i % words.length]!;
    const c = countries[i % countries.length]!;
    const id = ids[i % ids.length]!;
    const slug = slugs[i % slugs.length]!;
    const choice = [
      { path: `/v1/jobs?limit=100`, keyed: true },
      { path: `/v1/jobs?country=${c}&limit=50`, keyed: true },
      { path: `/v1/jobs?title=${w}&limit=20`, keyed: true },
      { path: `/v1/jobs?q=${w}&include_description=true&limit=20`, keyed: true },
      { path: `/v1/jobs?description_contains=${w}&limit=10`, keyed: true },
      { path: `/v1/jobs?remote=remote,hybrid&min_salary=50000&limit=50`, keyed: true },
      { path: `/v1/jobs?cursor=${encodeURIComponent(jobs.next_cursor ?? '')}&limit=100`, keyed: true },
      { path: `/v1/jobs/${id}`, keyed: true },
      { path: `/v1/companies?limit=50&offset=${i % 50}`, keyed: true },
      { path: `/v1/companies/${slug}`, keyed: true },
      { path: `/v1/meta/facets`, keyed: true },
      { path: `/v1/meta/providers`, keyed: true },
      { path: `/v1/changes?since=1970-01-01T00:00:00Z&limit=500`, keyed: true },
      { path: `/v1/jobs/expired?since=1970-01-01T00:00:00Z&limit=200`, keyed: true },
      { path: `/v1/jobs/closed?limit=100`, keyed: true },
      { path: `/v1/meta/freshness`, keyed: true },
      { path: `/public/jobs?country=${c}`, keyed: false },
      { path: `/public/jobs?q=${w}`, keyed: false },
      { path: `/public/jobs/${id}`, keyed: false },
      { path: `/public/companies?q=${w}`, keyed: false },
      { path: `/public/facets`, keyed: false },
      { path: `/public/coverage/employers`, keyed: false },
      { path: `/public/status`, keyed: false },
    ][(i * 7) % 23]!;
    paths.push(choice);
  }
  let next = 0;
  const requests = paths.map((p) => ({
    method: 'GET' as const,
    path: p.path,
    setupRequest: (request: Request) => {
      if (p.keyed) request.headers = { ...request.headers, authorization: `Bearer ${keys[next++ % keys.length]}` };
      return request;
    },
  }));

  const atServing = rssMiB(server.pid!);
  const samples: Array<{ t: number; rss: number }> = [{ t: 0, rss: atServing }];
  process.stdout.write(`serving: RSS ${atServing} MiB; load: ${RATE} req/s for ${SECONDS} s over ${requests.length} requests\n`);
  const started = Date.now();
  const sampler = setInterval(() => {
    const sample = { t: Math.round((Date.now() - started) / 1000), rss: rssMiB(server.pid!) };
    samples.push(sample);
    process.stdout.write(`t=${sample.t}s rss=${sample.rss} MiB\n`);
  }, SAMPLE_MS);
  const result = await autocannon({ url: base, connections: Number(args.connections), overallRate: RATE, duration: SECONDS, requests, timeout: 30 });
  clearInterval(sampler);
  const atEnd = rssMiB(server.pid!);
  const peak = Math.max(...samples.map((s) => s.rss), atEnd);
  process.stdout.write(
    `${JSON.stringify({
      rssMiB: { serving: atServing, peak, end: atEnd },
      requests: result.requests.total,
      perSecond: result.requests.average,
      status: { '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'], non2xx: result.non2xx, errors: result.errors, timeouts: result.timeouts },
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    })}\n`,
  );
} finally {
  await stop();
}
