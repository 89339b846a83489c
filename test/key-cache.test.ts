/**
 * The per-process key cache (issue 22, access/key-cache.ts) never lets a changed key through: two API
 * instances, each with its own key-change session, have the key cached; a revocation or rotation
 * committed by a third session (another process, as the CLI or another API instance would be) is
 * refused by both as soon as the change's notification reached them, and an unchanged key keeps working.
 */
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey, newKeyMaterial } from '../src/access/api-keys.ts';
import { listenForKeyChanges, type KeyChangeListener } from '../src/store/key-changes.ts';
import { buildTestApp } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

describe('key cache across API instances', () => {
  let t: TestDatabase;
  let other: pg.Client;
  const listeners: KeyChangeListener[] = [];
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const listener = listenForKeyChanges(t.url);
      await listener.ready;
      listeners.push(listener);
      apps.push(await buildTestApp(t, { keyChanges: listener }));
    }
    other = new pg.Client({ connectionString: t.url });
    await other.connect();
  });
  afterAll(async () => {
    await other.end();
    for (const app of apps) await app.close();
    for (const listener of listeners) await listener.close();
    await t.drop();
  });

  const statusOf = async (app: FastifyInstance, secret: string) =>
    (await app.inject({ method: 'GET', url: '/v1/jobs?limit=1', headers: { authorization: `Bearer ${secret}` } })).statusCode;

  /** Run `change` in another session and wait until both instances were told. */
  async function changeElsewhere(text: string, values: unknown[]): Promise<void> {
    const before = listeners.map((l) => l.generation);
    await other.query(text, values);
    await vi.waitFor(() => expect(listeners.map((l, i) => l.generation > before[i]!)).toEqual([true, true]), { timeout: 10_000, interval: 5 });
  }

  it('listens on both instances', () => {
    expect(listeners.map((l) => l.live)).toEqual([true, true]);
  });

  it('refuses a key revoked elsewhere on every instance that had it cached', async () => {
    const revoked = await createApiKey(t.db, { planId: 'scale' });
    const kept = await createApiKey(t.db, { planId: 'scale' });
    for (const app of apps) {
      expect(await statusOf(app, revoked.secret)).toBe(200);
      expect(await statusOf(app, revoked.secret)).toBe(200); // now from the cache
      expect(await statusOf(app, kept.secret)).toBe(200);
    }
    await changeElsewhere(`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1`, [revoked.id]);
    for (const app of apps) {
      expect(await statusOf(app, revoked.secret)).toBe(401);
      expect(await statusOf(app, kept.secret)).toBe(200);
    }
  });

  it('refuses the old secret of a key rotated elsewhere and accepts the new one on every instance', async () => {
    const key = await createApiKey(t.db, { planId: 'scale' });
    for (const app of apps) expect(await statusOf(app, key.secret)).toBe(200);
    const material = newKeyMaterial(key.keyPrefix);
    await changeElsewhere(`UPDATE api_keys SET secret_hash = $1, rotated_at = now() WHERE id = $2`, [material.hash, key.id]);
    for (const app of apps) {
      expect(await statusOf(app, key.secret)).toBe(401);
      expect(await statusOf(app, material.secret)).toBe(200);
    }
  });

  it('stops trusting cached keys while its session is down, and listens again after', async () => {
    const key = await createApiKey(t.db, { planId: 'scale' });
    expect(await statusOf(apps[0]!, key.secret)).toBe(200);
    await other.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'jobledger-key-changes' AND datname = current_database()`);
    await vi.waitFor(() => expect(listeners[0]!.live).toBe(false), { timeout: 10_000, interval: 5 });
    // Revoked while nobody listens: no notification can arrive, the key is read from the database.
    await other.query(`UPDATE api_keys SET status = 'revoked', revoked_at = now() WHERE id = $1`, [key.id]);
    expect(await statusOf(apps[0]!, key.secret)).toBe(401);
    await vi.waitFor(() => expect(listeners.map((l) => l.live)).toEqual([true, true]), { timeout: 20_000, interval: 20 });
  });
});
