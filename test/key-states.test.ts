/**
 * Every key state against every keyed endpoint (spec: Authentication items 2 to 6; API key state):
 * valid, unknown, revoked, expired, rotated (old and new secret), each accepted and each refused way
 * of presenting a key. Endpoints are read from the live OpenAPI contract, so an endpoint added to /v1
 * is covered without touching this file. Also: no secret in the database or in the logs.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey, rotateApiKey, type CreatedKey } from '../src/access/api-keys.ts';
import { buildTestApp, TEST_DOCS_URL } from './helpers/app.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

/** Unknown query parameters are ignored (spec), so every endpoint gets what the feed endpoints need. */
const COMMON_QUERY = 'since=2000-01-01T00:00:00Z';

describe('key states on every keyed endpoint', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  let endpoints: string[];
  const secrets: Record<string, string> = {};
  let valid: CreatedKey;

  beforeAll(async () => {
    t = await createTestDatabase({ corpus: true });
    // Counters in PostgreSQL here, so the dump below covers the counters table too.
    app = await buildTestApp(t, { requestCounters: { kind: 'postgres', pool: t.pool } });

    valid = await createApiKey(t.db, { planId: 'scale', name: 'valid' });
    const revoked = await createApiKey(t.db, { planId: 'scale' });
    await revokeApiKey(t.db, revoked.id);
    const expired = await createApiKey(t.db, { planId: 'scale', expiresAt: new Date(Date.now() - 60_000) });
    const rotated = await createApiKey(t.db, { planId: 'scale' });
    const fresh = await rotateApiKey(t.db, rotated.keyPrefix);
    const unknownPrefix = await createApiKey(t.db, { planId: 'scale' });
    await t.db.deleteFrom('api_keys').where('id', '=', unknownPrefix.id).execute();

    Object.assign(secrets, {
      valid: valid.secret,
      'rotated-new': fresh.secret,
      'rotated-old': rotated.secret,
      revoked: revoked.secret,
      expired: expired.secret,
      'unknown (known prefix)': `${valid.keyPrefix}_${'A'.repeat(43)}`,
      'unknown (deleted key)': unknownPrefix.secret,
      malformed: 'not-a-key',
    });

    const job = await t.db.selectFrom('jobs').select(['id']).where('served', '=', true).executeTakeFirstOrThrow();
    const company = await t.db.selectFrom('companies').select('slug').executeTakeFirstOrThrow();
    const contract = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown[] } | undefined>>;
    };
    // Every keyed endpoint: under /v1 and not documented as keyless (`security: []`, the contract itself).
    endpoints = Object.keys(contract.paths)
      .filter((p) => p.startsWith('/v1/') && contract.paths[p]!.get && contract.paths[p]!.get!.security?.length !== 0)
      .map((p) => p.replace('{id}', job.id).replace('{slug}', company.slug).replace(/\{[^}]+\}/g, 'x'));
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  const ACCEPTED = [(k: string) => `Bearer ${k}`, (k: string) => `bearer ${k}`, (k: string) => `BEARER ${k}`, (k: string) => k];

  it('covers the keyed endpoints of this release, whose contract documents the budget headers', async () => {
    expect(endpoints).toEqual(expect.arrayContaining(['/v1/jobs', '/v1/me', expect.stringMatching(/^\/v1\/jobs\/[0-9a-f-]{36}$/)]));
    type Responses = Record<string, { headers?: Record<string, { $ref: string }> }>;
    const contract = (await app.inject({ method: 'GET', url: '/public/openapi.json' })).json() as {
      paths: Record<string, { get: { responses: Responses } }>;
      components: { headers: Record<string, unknown> };
    };
    const jobs = contract.paths['/v1/jobs']!.get.responses;
    expect(Object.keys(jobs['200']!.headers!)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Records-Remaining', 'X-SVC-Country-Lock']));
    // A refused key gets no budget headers; only the names of ignored parameters (issue 19) are documented.
    expect(Object.keys(jobs['401']!.headers!)).toEqual(['X-Ignored-Params', 'X-Ignored-Params-Did-You-Mean']);
    expect(jobs['429']!.headers!['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    expect(Object.keys(contract.components.headers)).toContain('X-RateLimit-Records-Used');
  });

  it('answers valid and freshly rotated keys in every accepted spelling, and all others with one identical 401', async () => {
    const bodies = new Set<string>();
    const authenticate = new Set<string>();
    for (const endpoint of endpoints) {
      for (const [state, secret] of Object.entries(secrets)) {
        for (const spelling of ACCEPTED) {
          const res = await app.inject({ method: 'GET', url: `${endpoint}?${COMMON_QUERY}`, headers: { authorization: spelling(secret) } });
          const label = `${endpoint} ${state} "${spelling('KEY')}"`;
          if (state === 'valid' || state === 'rotated-new') {
            expect(res.statusCode, label).not.toBe(401);
            expect(res.statusCode, label).toBeLessThan(500);
            if (['/v1/jobs', '/v1/me'].includes(endpoint) || endpoint.startsWith('/v1/jobs/')) expect(res.statusCode, label).toBe(200);
            expect(res.headers['x-ratelimit-limit'], label).toBe('600');
          } else {
            expect(res.statusCode, label).toBe(401);
            bodies.add(res.body);
            authenticate.add(String(res.headers['www-authenticate']));
            expect(res.headers['x-ratelimit-limit'], label).toBeUndefined();
          }
        }
      }
    }
    expect(bodies.size).toBe(1);
    expect(JSON.parse([...bodies][0]!)).toEqual({ error: 'unauthorized', message: expect.any(String), docs: `${TEST_DOCS_URL}#unauthorized`, type: `${TEST_DOCS_URL}#unauthorized`, title: 'Unauthorized', status: 401 });
    expect([...authenticate]).toEqual(['Bearer']);
  });

  it('reads the key from nowhere but the Authorization header', async () => {
    const bodies = new Set<string>();
    const k = secrets.valid!;
    for (const endpoint of endpoints) {
      const refused: Array<[string, Record<string, string>, string]> = [
        ['no credential', {}, ''],
        ['X-Api-Key header', { 'x-api-key': k }, ''],
        ['key query parameter', {}, `&key=${encodeURIComponent(k)}`],
        ['api_key query parameter', {}, `&api_key=${encodeURIComponent(k)}`],
        ['Basic scheme', { authorization: `Basic ${k}` }, ''],
        ['Token scheme', { authorization: `Token ${k}` }, ''],
        ['scheme without key', { authorization: 'Bearer' }, ''],
        ['two keys', { authorization: `Bearer ${k} ${k}` }, ''],
      ];
      for (const [name, headers, query] of refused) {
        const res = await app.inject({ method: 'GET', url: `${endpoint}?${COMMON_QUERY}${query}`, headers });
        expect(res.statusCode, `${endpoint} ${name}`).toBe(401);
        bodies.add(res.body);
      }
    }
    expect(bodies.size).toBe(1);
  });

  it('keeps a rotated key its identity, plan and meters', async () => {
    const key = await createApiKey(t.db, { planId: 'growth' });
    const before = await app.inject({ method: 'GET', url: '/v1/jobs?limit=7', headers: { authorization: `Bearer ${key.secret}` } });
    expect(before.headers['x-ratelimit-records-used']).toBe('7');
    const rotated = await rotateApiKey(t.db, key.id);
    expect(rotated).toMatchObject({ id: key.id, keyPrefix: key.keyPrefix });
    const me = await app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${rotated.secret}` } });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ key_prefix: key.keyPrefix, plan: 'growth', usage_today: 2 });
    expect(me.headers['x-ratelimit-records-used']).toBe('7');
    expect((await app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${key.secret}` } })).statusCode).toBe(401);
  });

  it('stores no secret anywhere in the access tables, only SHA-256 hashes', async () => {
    const tables = ['api_keys', 'accounts', 'plans', 'record_usage', 'request_counters', 'service_settings'];
    let dump = '';
    for (const table of tables) {
      const { rows } = await t.pool.query<{ line: string }>(`SELECT t::text AS line FROM ${table} t`);
      dump += rows.map((r) => r.line).join('\n');
    }
    expect(dump).toContain(valid.keyPrefix);
    expect(dump).toMatch(/request_counters|req-min|req-day/);
    for (const [state, secret] of Object.entries(secrets)) {
      if (!secret.startsWith('jl_')) continue;
      expect(dump, state).not.toContain(secret);
      expect(dump, state).not.toContain(secret.slice(12));
      expect(dump, state).not.toContain(Buffer.from(secret).toString('hex'));
    }
  });

  it('never writes a key to the logs, wherever a client puts it', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logged += chunk.toString();
        callback();
      },
    });
    const verbose = await buildTestApp(t, { log: pino({ level: 'trace' }, sink) });
    try {
      const k = secrets.valid!;
      await verbose.inject({ method: 'GET', url: '/v1/jobs?limit=1', headers: { authorization: `Bearer ${k}` } });
      await verbose.inject({ method: 'GET', url: `/v1/jobs?key=${encodeURIComponent(k)}`, headers: { 'x-api-key': k } });
      await verbose.inject({ method: 'GET', url: `/public/jobs?key=${encodeURIComponent(k)}`, headers: { authorization: `Bearer ${k}` } });
      await verbose.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${secrets['rotated-old']}` } });
    } finally {
      await verbose.close();
    }
    expect(logged).toContain('/v1/jobs');
    for (const secret of Object.values(secrets)) {
      if (!secret.startsWith('jl_')) continue;
      expect(logged).not.toContain(secret.slice(12));
      expect(logged).not.toContain(encodeURIComponent(secret).slice(12));
    }
  });
});
