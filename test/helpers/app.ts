/**
 * The real app (the same `buildApp` production uses) over a test database, plus a key to call it with;
 * `useTestApp` / `useCorpusApp` set up all three for a describe block.
 *
 * Request counters: in process by default; when REDIS_URL is set (CI's second pass), in that Redis
 * under a prefix unique to the app, so every HTTP test also runs the shared-counter path.
 */
import type { KeylessPageCache } from '../../src/http/keyless-page-cache.ts';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import { expect } from 'vitest';
import { connectRedis, waitForRedis, type CounterStore } from '../../src/access/counters.ts';
import type { Clock } from '../../src/access/periods.ts';
import type { Billing } from '../../src/billing/billing.ts';
import { buildApp } from '../../src/http/app.ts';
import type { SignedInAccount } from '../../src/http/routes/checkout.ts';
import type { ReportSettings } from '../../src/reports/snapshots.ts';
import type { SiteOptions } from '../../src/site/site.ts';
import { createApiKey, type CreatedKey } from '../../src/access/api-keys.ts';
import type { KeyChangeSignal } from '../../src/store/key-changes.ts';
import type { DB } from '../../src/store/schema.ts';
import { cursorSecret } from '../../src/store/settings.ts';
import { validatingInject } from './contract.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { useParts } from './hooks.ts';

/** Docs base used in tests, so error bodies can be asserted exactly. */
export const TEST_DOCS_URL = 'https://docs.example.test/errors';

export interface TestAppOptions {
  /** Where request counters live; default: REDIS_URL when set, else in process. */
  requestCounters?: CounterStore;
  clock?: Clock;
  trustProxyHops?: number;
  /**
   * Keyless requests per 5 s and address. Default here: 1000, so tests about other behaviour can call
   * /public freely from one loopback address; the limit itself is tested with the production default.
   */
  keylessBurst?: number;
  /** The public base URL (JOBLEDGER_SITE_URL) the OpenAPI document names in `servers`. */
  publicUrl?: string;
  log?: Logger;
  /** Validate every `app.inject` response against the served OpenAPI document (default true). */
  contract?: boolean;
  reports?: ReportSettings;
  /** The billing service over the test database (default: none configured, nothing on sale). */
  billing?: (t: TestDatabase) => Billing;
  /** The site's session check for POST /public/checkout (default: sign-in required). */
  signedInAccount?: SignedInAccount;
  /** The website (absent: none, as in most tests). */
  site?: SiteOptions;
  /** The key-change signal (absent: no key cache, as in most tests). */
  keyChanges?: KeyChangeSignal;
  /** The keyless page cache (absent: none, as in most tests; `serve` has one). */
  keylessPageCache?: KeylessPageCache;
  /** Answer repeated /public/jobs requests ahead of the router (needs `keylessPageCache`; only over a real socket). */
  keylessFrontCache?: boolean;
  /** Where listings, companies, facets and reports are read (a read replica); absent: the test database. */
  reader?: Kysely<DB>;
  /** The generic-plan sessions (AppOptions.genericReader); the reader when absent. */
  genericReader?: Kysely<DB>;
}

/** The keyless burst of test apps unless a test asks for another. */
export const TEST_KEYLESS_BURST = 1000;

/** A Redis prefix no other test or test run uses. */
export function uniqueRedisPrefix(): string {
  return `jltest:${randomBytes(6).toString('hex')}`;
}

/**
 * The app over `t`. Unless `contract: false`, every `app.inject` response is validated against the
 * OpenAPI document the app serves (test/helpers/contract.ts) and a non-conforming one throws.
 */
export async function buildTestApp(t: TestDatabase, options: TestAppOptions = {}): Promise<FastifyInstance> {
  let requestCounters = options.requestCounters;
  let redis: Redis | undefined;
  if (!requestCounters && process.env.REDIS_URL) {
    redis = connectRedis(process.env.REDIS_URL, pino({ level: 'silent' }));
    if (!(await waitForRedis(redis))) throw new Error(`REDIS_URL is set but ${process.env.REDIS_URL} does not answer`);
    requestCounters = { kind: 'redis', client: redis, keyPrefix: uniqueRedisPrefix() };
  }
  const app = await buildApp({
    db: t.db,
    log: options.log ?? pino({ level: 'silent' }),
    docsUrl: TEST_DOCS_URL,
    cursorSecret: await cursorSecret(t.db),
    requestCounters,
    clock: options.clock,
    trustProxyHops: options.trustProxyHops,
    keylessBurst: options.keylessBurst ?? TEST_KEYLESS_BURST,
    reports: options.reports,
    billing: options.billing?.(t),
    signedInAccount: options.signedInAccount,
    site: options.site,
    keyChanges: options.keyChanges,
    keylessPageCache: options.keylessPageCache,
    keylessFrontCache: options.keylessFrontCache,
    publicUrl: options.publicUrl,
    reader: options.reader,
    genericReader: options.genericReader,
  });
  if (options.contract !== false) validatingInject(app);
  if (redis) {
    const client = redis;
    app.addHook('onClose', async () => {
      client.disconnect();
    });
  }
  return app;
}

export async function createKey(t: TestDatabase, planId = 'scale', extra: { expiresAt?: Date; countryLock?: string } = {}): Promise<CreatedKey> {
  return createApiKey(t.db, { planId, name: `test ${planId}`, ...extra });
}

/** Id of the plan {@link createUnlimitedKey} uses. */
export const UNLIMITED_TEST_PLAN = 'test-unlimited';

/**
 * A key on a plan (plans are data) whose budgets a test cannot reach, with every entitlement: for
 * tests that page through the whole ledger or fire thousands of requests to check something other
 * than metering. Metering itself is tested with the spec's plans.
 */
export async function createUnlimitedKey(t: TestDatabase): Promise<CreatedKey> {
  await t.db
    .insertInto('plans')
    .values({
      id: UNLIMITED_TEST_PLAN,
      label: 'Unlimited (tests)',
      price_cents: 0,
      records_per_month: 1e12,
      requests_per_day: 2e9,
      requests_per_minute: 2e9,
      max_page_size: 200,
      entitlements: ['delta_feed', 'bulk_export'],
      purchasable: false,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return createKey(t, UNLIMITED_TEST_PLAN);
}

export function bearer(key: CreatedKey): { authorization: string } {
  return { authorization: `Bearer ${key.secret}` };
}

/**
 * Every row of a keyset-paged listing (`/v1/jobs`, `/v1/jobs/closed`, `/v1/companies`): `url`, which sets
 * its own `limit`, then each page's `next_cursor` as `&cursor=`, until a page gives none. Each page must
 * answer 200 and say `has_more` exactly when it gives a `next_cursor` (spec: Recipes, "Deep paging").
 * @param get the request of one page, e.g. `app.inject` GET with the test's key.
 */
export async function allPages<T>(get: (url: string) => Promise<{ statusCode: number; body: string; json(): unknown }>, url: string): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | null = null;
  do {
    const pageUrl: string = cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url;
    const res = await get(pageUrl);
    expect(res.statusCode, `${pageUrl}: ${res.body.slice(0, 200)}`).toBe(200);
    const page = res.json() as { data: T[]; has_more: boolean; next_cursor: string | null };
    rows.push(...page.data);
    expect(page.has_more, pageUrl).toBe(page.next_cursor !== null);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
}

/** What {@link useTestApp} sets up. Its fields are there from the first hook or test of the block on. */
export interface TestApp {
  readonly t: TestDatabase;
  readonly app: FastifyInstance;
  /** The key made for the block (see {@link UseTestAppOptions.key}). */
  readonly key: CreatedKey;
}

export interface UseTestAppOptions {
  /** Clone the imported real corpus instead of the empty migrated ledger. */
  corpus?: boolean;
  database?: { statementTimeoutMs?: number; maxConnections?: number };
  app?: TestAppOptions;
  /** The plan of the block's key (default `scale`), `unlimited` for {@link createUnlimitedKey}, or false for none. */
  key?: string | false;
}

/**
 * A test database, the app over it and a key, made before the describe block's tests (and before the
 * block's own `beforeAll` hooks, which run after this one) and dropped after them.
 */
export function useTestApp(options: UseTestAppOptions = {}): TestApp {
  return useParts<TestApp>(
    'useTestApp',
    ['t', 'app', 'key'],
    async (made) => {
      made.t = await createTestDatabase({ ...options.database, corpus: options.corpus });
      made.app = await buildTestApp(made.t, options.app);
      const plan = options.key ?? 'scale';
      if (plan === 'unlimited') made.key = await createUnlimitedKey(made.t);
      else if (plan !== false) made.key = await createKey(made.t, plan);
    },
    async ({ t, app }) => {
      await app?.close();
      await t?.drop();
    },
  );
}

/** {@link useTestApp} over a clone of the imported real corpus. */
export function useCorpusApp(options: Omit<UseTestAppOptions, 'corpus'> = {}): TestApp {
  return useTestApp({ ...options, corpus: true });
}
