/**
 * Authentication of the keyed surface (spec: Authentication; API key state).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, listApiKeys } from '../src/access/api-keys.ts';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { createKey, TEST_DOCS_URL, useTestApp } from './helpers/app.ts';

describe('API keys on /v1', () => {
  const ctx = useTestApp({ key: false });
  let valid: CreatedKey;
  let revoked: CreatedKey;
  let expired: CreatedKey;

  beforeAll(async () => {
    valid = await createKey(ctx.t, 'explore');
    revoked = await createKey(ctx.t, 'explore');
    await ctx.t.db.updateTable('api_keys').set({ status: 'revoked', revoked_at: new Date() }).where('id', '=', revoked.id).execute();
    expired = await createApiKey(ctx.t.db, { planId: 'explore', expiresAt: new Date(Date.now() - 1000) });
  });

  const get = (headers: Record<string, string>, url = '/v1/jobs') => ctx.app.inject({ method: 'GET', url, headers });

  it('accepts Bearer, bearer, BEARER and the bare key', async () => {
    for (const authorization of [`Bearer ${valid.secret}`, `bearer ${valid.secret}`, `BEARER ${valid.secret}`, valid.secret]) {
      const res = await get({ authorization });
      expect(res.statusCode, authorization.slice(0, 7)).toBe(200);
    }
  });

  it('answers missing, unknown, malformed, revoked, expired keys and unread headers with one identical 401', async () => {
    const unknown = `${valid.keyPrefix}_${'A'.repeat(43)}`;
    const cases: Array<[string, Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>]> = [
      ['missing', get({})],
      ['unknown', get({ authorization: `Bearer ${unknown}` })],
      ['malformed', get({ authorization: 'Bearer nonsense' })],
      ['basic scheme', get({ authorization: `Basic ${valid.secret}` })],
      ['revoked', get({ authorization: `Bearer ${revoked.secret}` })],
      ['expired', get({ authorization: `Bearer ${expired.secret}` })],
      ['X-Api-Key', get({ 'x-api-key': valid.secret })],
      ['key query parameter', get({}, `/v1/jobs?key=${encodeURIComponent(valid.secret)}`)],
    ];
    const bodies = new Set<string>();
    for (const [name, pending] of cases) {
      const res = await pending;
      expect(res.statusCode, name).toBe(401);
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
    const body = JSON.parse([...bodies][0]!);
    expect(body).toEqual({ error: 'unauthorized', message: expect.any(String), docs: `${TEST_DOCS_URL}#unauthorized`, type: `${TEST_DOCS_URL}#unauthorized`, title: 'Unauthorized', status: 401 });
  });

  it('stores no secret, only its SHA-256, and lists keys by prefix', async () => {
    const dump = await ctx.t.pool.query('SELECT * FROM api_keys');
    const text = JSON.stringify(dump.rows);
    for (const key of [valid, revoked, expired]) {
      expect(text).not.toContain(key.secret);
      expect(text).not.toContain(key.secret.slice(12));
    }
    const listed = await listApiKeys(ctx.t.db);
    expect(listed.map((k) => k.status).sort()).toEqual(['active', 'expired', 'revoked']);
    expect(JSON.stringify(listed)).not.toContain(valid.secret);
  });

  it('needs no key for the contract and the keyless surface', async () => {
    expect((await get({}, '/v1/openapi.json')).statusCode).toBe(200);
    expect((await get({}, '/public/jobs')).statusCode).toBe(200);
    expect((await get({}, '/health')).statusCode).toBe(200);
  });
});
