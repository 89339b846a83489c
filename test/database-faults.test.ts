/**
 * PostgreSQL ends sessions under real processes (issue 13, defect 1): the API answers 503
 * `unavailable` with Retry-After while its sessions are terminated under load, replaces them and keeps
 * serving; an ingest whose database restarts fails the boards it could not write, exits non-zero with
 * a clear line, and a rerun completes. Nothing here is simulated: `pg_terminate_backend` on the API's
 * real sessions, and a stop and start of a PostgreSQL cluster this test owns.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TARGETS } from './helpers/fixtures.ts';
import { openDatabase, type Database } from '../src/store/database.ts';
import { createUnlimitedKey } from './helpers/app.ts';
import { logLines, runCli, startCli, type CliProcess } from './helpers/cli-process.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

interface Answer {
  url: string;
  status: number;
  retryAfter: string | null;
  error?: string;
  /** The body, kept for a failing assertion's message. */
  text: string;
  at: number;
}

describe('the API process when PostgreSQL terminates its sessions under load', () => {
  let t: TestDatabase;
  let api: CliProcess | undefined;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
  });
  afterAll(async () => {
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      await api.exited;
    }
    await t.drop();
  });

  it('answers only 503 unavailable with Retry-After while sessions die, then 200s, and stays alive', async () => {
    // Not a metering test: a fast machine makes more than a plan's 600 requests a minute.
    const key = await createUnlimitedKey(t);
    const port = await freePort();
    api = startCli(['serve', '--no-worker'], { DATABASE_URL: t.url, PORT: String(port), HOST: '127.0.0.1', JOBLEDGER_KEYLESS_BURST: '0' });
    await api.waitFor('jobledger is serving');
    const base = `http://127.0.0.1:${port}`;
    // A cursor page of the unfiltered listing runs on the generic-plan sessions (Database.genericReader).
    const first = (await (await fetch(`${base}/v1/jobs?limit=5`, { headers: { Authorization: `Bearer ${key.secret}` } })).json()) as { next_cursor: string };
    const paths = ['/public/jobs?country=US', '/v1/jobs?limit=50', '/public/companies', '/v1/jobs?q=engineer&limit=20', '/v1/companies?limit=20', '/public/jobs?remote=remote', `/v1/jobs?cursor=${first.next_cursor}`];

    const answers: Answer[] = [];
    let loading = true;
    const client = async (n: number) => {
      for (let i = n; loading; i++) {
        const url = `${base}${paths[i % paths.length]}`;
        const res = await fetch(url, { headers: url.includes('/v1/') ? { Authorization: `Bearer ${key.secret}` } : {} });
        const text = await res.text();
        let error: string | undefined;
        try {
          error = (JSON.parse(text) as { error?: string }).error;
        } catch {
          error = undefined;
        }
        answers.push({ url, status: res.status, retryAfter: res.headers.get('retry-after'), error, text: text.slice(0, 300), at: Date.now() });
      }
    };
    const clients = Array.from({ length: paths.length }, (_, n) => client(n));

    // Terminate every session of the API process, again and again, until requests in flight have
    // lost their session (a 503 was answered), and a few rounds more.
    const admin = new pg.Client({ connectionString: t.url });
    await admin.connect();
    let rounds = 0;
    let terminated = 0;
    let terminatedGeneric = 0;
    let extraRounds = 5;
    // Until a request in flight has lost its session (a 503) and a generic-plan session has been
    // terminated too: the cursor page's client may have no session open at the first rounds (this
    // test once stopped after six rounds, all before one existed), then a few rounds more.
    const struck = () => answers.some((a) => a.status === 503) && terminatedGeneric > 0;
    while (rounds < 200 && (extraRounds > 0 || !struck())) {
      const { rows } = await admin.query<{ application_name: string }>(
        "SELECT application_name, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name IN ('jobledger-api', 'jobledger-api-generic') AND pid <> pg_backend_pid()",
      );
      terminated += rows.length;
      terminatedGeneric += rows.filter((r) => r.application_name === 'jobledger-api-generic').length;
      rounds++;
      if (struck()) extraRounds--;
      await new Promise((r) => setTimeout(r, 150));
    }
    await admin.end();
    const faultsEnded = Date.now();
    // Keep the load on for a while after the last termination: the pool must have replaced its sessions.
    await new Promise((r) => setTimeout(r, 4000));
    loading = false;
    await Promise.all(clients);

    expect(terminated).toBeGreaterThan(0);
    expect(terminatedGeneric).toBeGreaterThan(0);
    expect(api.child.exitCode).toBeNull();
    expect(api.output()).not.toContain("Unhandled 'error' event");
    const failures = answers.filter((a) => a.status !== 200);
    // The fault was real: requests in flight lost their session.
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure, `${failure.url}: ${failure.text}`).toMatchObject({ status: 503, retryAfter: '5', error: 'unavailable' });
    }
    // Afterwards (allowing a second for answers already under way), every answer is a 200.
    const after = answers.filter((a) => a.at > faultsEnded + 1000);
    expect(after.length).toBeGreaterThan(10);
    expect(after.every((a) => a.status === 200)).toBe(true);
    expect(logLines(api.output(), 'a PostgreSQL session was lost; the pool replaces it').length).toBeGreaterThan(0);

    api.child.kill('SIGTERM');
    expect((await api.exited).code).toBe(0);
  }, 300_000);
});

describe('an ingest whose PostgreSQL restarts', () => {
  let dataDir: string;
  let cluster: Database | undefined;
  const log = pino({ level: 'silent' });

  afterAll(async () => {
    await cluster?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('fails the boards it could not write, exits 1 with a clear line, and a rerun completes', async () => {
    // A cluster of this test's own (never the machine's shared server): the test stops and starts it.
    dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-restart-'));
    await chmod(dataDir, 0o755);
    const options = { databaseUrl: undefined, dataDir, embeddedPgPort: await freePort(), statementTimeoutMs: 0, maxConnections: 2 };
    cluster = await openDatabase(options, log);
    const env = { DATABASE_URL: cluster.connectionString };

    const ingest = startCli(['ingest', '--demo'], env);
    // Some boards are in, most are not: restart PostgreSQL under the running import.
    await ingest.waitFor('"msg":"import progress"');
    await cluster.close();
    cluster = await openDatabase(options, log);

    const { code } = await ingest.exited;
    const output = ingest.output();
    expect(output).not.toContain("Unhandled 'error' event");
    expect(code).toBe(1);
    expect(output).toMatch(/jobledger ingest: \d+ boards? failed \([^)]*\bnothing changed for them\)/);
    const finished = logLines(output, 'import finished')[0];
    expect(finished).toMatchObject({ targets: DEMO_TARGETS });
    expect(finished!.failed).toBeGreaterThan(0);

    // The rerun brings every board in.
    const rerun = await runCli(['ingest', '--demo'], env);
    expect(rerun.code, rerun.output).toBe(0);
    expect(logLines(rerun.output, 'import finished')[0]).toMatchObject({ targets: DEMO_TARGETS, failed: 0, busy: 0 });
    const { rows } = await cluster.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM crawl_targets WHERE last_success_at IS NOT NULL AND lease_owner IS NULL');
    expect(rows[0]!.n).toBe(DEMO_TARGETS);
  }, 600_000);
});
