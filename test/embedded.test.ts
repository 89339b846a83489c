/**
 * The embedded PostgreSQL: a second process attaches to the running cluster instead of starting a
 * second one on the same data directory, and only the owner stops it.
 */
import { chmod, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/store/database.ts';
import { freePort } from './helpers/ports.ts';

describe('the embedded PostgreSQL', () => {
  it('is shared by a second opener and stopped only by its owner', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-embedded-'));
    await chmod(dataDir, 0o755);
    const log = pino({ level: 'silent' });
    const options = { databaseUrl: undefined, dataDir, embeddedPgPort: await freePort(), statementTimeoutMs: 0, maxConnections: 2 };
    try {
      const owner = await openDatabase(options, log);
      expect(owner.embedded).toBe('owner');
      await owner.pool.query('CREATE TABLE marker (x int)');

      const attached = await openDatabase({ ...options, embeddedPgPort: await freePort() }, log);
      expect(attached.embedded).toBe('attached');
      const { rows } = await attached.pool.query("SELECT to_regclass('marker') IS NOT NULL AS present");
      expect(rows[0].present).toBe(true);
      await attached.close();

      // The owner's cluster is still up after the attached process left.
      expect((await owner.pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      await owner.close();

      // After the owner stopped it, the next opener starts it again and finds the data kept.
      const restarted = await openDatabase(options, log);
      expect(restarted.embedded).toBe('owner');
      expect((await restarted.pool.query("SELECT to_regclass('marker') IS NOT NULL AS present")).rows[0].present).toBe(true);
      await restarted.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  // As root the cluster runs as the `postgres` system user; these only mean something as root (CI is).
  const asRoot = process.getuid?.() === 0;

  it.runIf(asRoot)('starts in a data directory made with mode 0700, opening it for traversal only', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'jobledger-embedded-0700-'));
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    try {
      const owner = await openDatabase(
        { databaseUrl: undefined, dataDir, embeddedPgPort: await freePort(), statementTimeoutMs: 0, maxConnections: 1 },
        pino({ level: 'silent' }),
      );
      expect((await owner.pool.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      await owner.close();
      // Search for others, so the postgres user can pass; never read, so its listing stays private.
      expect((await stat(dataDir)).mode & 0o777).toBe(0o701);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it.runIf(asRoot)('names the folder above the data directory that the postgres user cannot enter, and leaves it as it is', async () => {
    const closed = await mkdtemp(path.join(tmpdir(), 'jobledger-embedded-closed-'));
    const dataDir = path.join(closed, 'data');
    await mkdir(dataDir);
    try {
      const opening = openDatabase(
        { databaseUrl: undefined, dataDir, embeddedPgPort: await freePort(), statementTimeoutMs: 0, maxConnections: 1 },
        pino({ level: 'silent' }),
      );
      await expect(opening).rejects.toThrow(`cannot enter ${closed} (mode 0700); set JOBLEDGER_DATA_DIR`);
      expect((await stat(closed)).mode & 0o777).toBe(0o700);
    } finally {
      await rm(closed, { recursive: true, force: true });
    }
  });
});
