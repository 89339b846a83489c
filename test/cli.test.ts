/**
 * The `jobledger` command as an operator runs it: a real process against a real database.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/jobledger.js');

function jobledger(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', CI: 'true', ...env }, timeout: 60_000 });
}

describe('the jobledger command', () => {
  const t = useTestDatabase();

  // One test per command: each starts Node.js and imports the whole CLI, several seconds under load.
  it.each([[], ['serve'], ['ingest'], ['migrate'], ['config'], ['keys'], ['keys', 'create'], ['keys', 'list'], ['targets'], ['targets', 'add'], ['targets', 'list'], ['targets', 'discover'], ['targets', 'import'], ['worker'], ['optout'], ['optout', 'add'], ['optout', 'list'], ['optout', 'revoke'], ['submissions'], ['submissions', 'list'], ['submissions', 'reject'], ['submissions', 'sweep'], ['bench-seed'], ['mcp'], ['companies']].map((argv) => [argv.join(' ') || '(no command)', argv] as const))(
    'explains `jobledger %s` with --help',
    async (_label, argv) => {
      const { stdout } = await jobledger([...argv, '--help']);
      expect(stdout, argv.join(' ')).toContain('Usage: jobledger');
    },
    90_000,
  );

  it('lists every setting with its default', async () => {
    const { stdout } = await jobledger(['config']);
    for (const name of ['PORT=8080', 'DATABASE_URL=', 'JOBLEDGER_DATA_DIR=./data', 'REDIS_URL=', 'JOBLEDGER_FETCH_ALLOW=']) expect(stdout).toContain(name);
  });

  it('prints its version, and checks the effective configuration with secrets masked', async () => {
    const { version } = JSON.parse(await import('node:fs/promises').then((fs) => fs.readFile(path.resolve(import.meta.dirname, '../package.json'), 'utf8'))) as { version: string };
    expect((await jobledger(['--version'])).stdout.trim()).toBe(version);
    const good = await jobledger(['config', '--check'], { DATABASE_URL: 'postgres://app:hunter2@db:5432/x', PORT: '9000' });
    expect(good.stdout).toContain('DATABASE_URL=postgres://app:***@db:5432/x');
    expect(good.stdout).not.toContain('hunter2');
    expect(good.stdout).toContain('PORT=9000\n');
    await expect(jobledger(['config', '--check'], { PORT: 'eighty' })).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('PORT=eighty  INVALID: PORT must be an integer'),
    });
  });

  it('creates a key, prints its secret once, and lists it by prefix only', async () => {
    const created = await jobledger(['keys', 'create', '--plan', 'explore', '--name', 'cli test'], { DATABASE_URL: t.url });
    const secret = /secret \(shown once\): (\S+)/.exec(created.stdout)?.[1];
    expect(secret).toMatch(/^jl_[a-z2-9]{8}_[A-Za-z0-9_-]{43}$/);
    const listed = await jobledger(['keys', 'list'], { DATABASE_URL: t.url });
    expect(listed.stdout).toContain(secret!.slice(0, 11));
    expect(listed.stdout).toContain('explore');
    expect(listed.stdout).not.toContain(secret!.slice(12));
  });

  it('refuses an unknown plan and a malformed country with a clear message', async () => {
    await expect(jobledger(['keys', 'create', '--plan', 'platinum'], { DATABASE_URL: t.url })).rejects.toMatchObject({
      stderr: expect.stringContaining('unknown plan "platinum"'),
    });
    await expect(jobledger(['keys', 'create', '--plan', 'explore', '--country', 'Germany'], { DATABASE_URL: t.url })).rejects.toMatchObject({
      stderr: expect.stringContaining('ISO-3166 alpha-2'),
    });
  });

  it('exits non-zero when an import fails, also on the embedded PostgreSQL', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-cli-'));
    await chmod(dataDir, 0o755);
    // No DATABASE_URL: the embedded cluster (whose package hooks process exit) runs in dataDir.
    const env = { DATABASE_URL: '', JOBLEDGER_DATA_DIR: dataDir, JOBLEDGER_EMBEDDED_PG_PORT: String(await freePort()), JOBLEDGER_ASHBY_BASE_URL: 'http://127.0.0.1:9', JOBLEDGER_FETCH_RETRIES: '0' };
    try {
      await jobledger(['targets', 'add', '--provider', 'ashby', '--board', 'nowhere', '--company', 'Nowhere'], env);
      // The source address is loopback and not allow-listed: the crawl fails, so the command must too.
      await expect(jobledger(['ingest'], env)).rejects.toMatchObject({ code: 1 });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('names a malformed setting instead of starting', async () => {
    await expect(jobledger(['keys', 'list'], { DATABASE_URL: t.url, PORT: 'eighty' })).rejects.toMatchObject({
      stderr: expect.stringContaining('PORT must be an integer'),
    });
  });
});
