/**
 * The embedded PostgreSQL: a second process attaches to the running cluster instead of starting a
 * second one on the same data directory, and only the owner stops it.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
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
});
