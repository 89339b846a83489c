/**
 * The main job as an operator runs it (`npm start` = `jobledger serve --demo`): a real process with
 * the embedded PostgreSQL in a fresh data directory imports the bundled real feeds, prints a key,
 * serves on its port, stops cleanly on SIGTERM, and on a second start reuses the data and imports only
 * what changed (nothing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_TARGETS } from './helpers/fixtures.ts';
import { freePort } from './helpers/ports.ts';

const CLI = path.resolve(import.meta.dirname, '../src/main/cli.ts');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

async function start(env: Record<string, string>): Promise<Started> {
  const childEnv: Record<string, string | undefined> = { ...process.env, CI: 'true', LOG_LEVEL: 'info', ...env };
  delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, [CLI, 'serve', '--demo'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 120_000;
  while (!output.includes('jobledger is serving')) {
    if (child.exitCode !== null) throw new Error(`serve exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`serve did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // The key (first run) is printed right after the "serving" line.
  await new Promise((r) => setTimeout(r, 300));
  return { child, output: () => output, exited };
}

function logLine(output: string, msg: string): Record<string, unknown> {
  const line = output.split('\n').find((l) => l.includes(`"msg":"${msg}"`));
  if (!line) throw new Error(`no "${msg}" log line in:\n${output}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('npm start on a fresh data directory', () => {
  let dataDir: string | undefined;
  afterAll(async () => {
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('imports the real feeds, serves them with a printed key, stops cleanly, and reuses the data on restart', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-main-'));
    await chmod(dataDir, 0o755);
    const port = await freePort();
    const env = { PORT: String(port), HOST: '127.0.0.1', JOBLEDGER_DATA_DIR: dataDir, JOBLEDGER_EMBEDDED_PG_PORT: String(await freePort()) };

    const first = await start(env);
    const imported = logLine(first.output(), 'import finished');
    // Recorded payloads only (issue 23): 58 Ashby boards, 3 USAJOBS files, 1 Greenhouse and 1 Lever board.
    expect(imported).toMatchObject({ targets: DEMO_TARGETS, failed: 0 });
    expect(imported.created).toBeGreaterThan(7000);
    const key = /Bearer (jl_[a-z2-9]{8}_[A-Za-z0-9_-]{43})/.exec(first.output())?.[1];
    expect(key).toBeDefined();

    const base = `http://127.0.0.1:${port}`;
    const pub = await fetch(`${base}/public/jobs?country=US`);
    expect(pub.status).toBe(200);
    const pubBody = (await pub.json()) as { data: Array<{ country: string }> };
    expect(pubBody.data.length).toBeGreaterThan(0);
    expect(pubBody.data.every((j) => j.country === 'US')).toBe(true);

    let rows = 0;
    let cursor: string | null = null;
    do {
      const res: Response = await fetch(`${base}/v1/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { data: unknown[]; next_cursor: string | null };
      rows += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    expect(rows).toBeGreaterThanOrEqual(2000);
    expect(logLine(first.output(), 'jobledger is serving').served).toBe(rows);
    // The crawl worker runs inside serve, and the demo key (plan scale) follows the change feed.
    expect(logLine(first.output(), 'crawl worker started')).toMatchObject({ concurrency: 4, perHost: 2 });
    const feed = await fetch(`${base}/v1/changes?since=1970-01-01T00:00:00Z&limit=5000`, { headers: { Authorization: `Bearer ${key}` } });
    expect(feed.status).toBe(200);
    expect(((await feed.json()) as { count: number }).count).toBe(rows);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('stopping embedded PostgreSQL');

    const second = await start(env);
    const again = logLine(second.output(), 'import finished');
    // Every board with postings answers 304; the two empty recorded boards are fetched again (an empty
    // answer's validators are not kept, so a 304 never stands for "still empty"), and so is the Workday
    // board (its search is a POST, which has no conditional form: its one served posting is re-read).
    // None of them changes anything.
    expect(again).toMatchObject({ targets: DEMO_TARGETS, failed: 0, notModified: DEMO_TARGETS - 3, postings: 1, created: 0, updated: 0, closed: 0 });
    expect(second.output()).not.toMatch(/Bearer jl_/);
    expect(logLine(second.output(), 'jobledger is serving').served).toBe(rows);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 300_000);
});
