/**
 * The real app (the same `buildApp` production uses) over a test database, plus a key to call it with.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/http/app.ts';
import type { ReportSettings } from '../../src/reports/snapshots.ts';
import { createApiKey, type CreatedKey } from '../../src/store/api-keys.ts';
import { cursorSecret } from '../../src/store/settings.ts';
import { validatingInject } from './contract.ts';
import type { TestDatabase } from './database.ts';

/** Docs base used in tests, so error bodies can be asserted exactly. */
export const TEST_DOCS_URL = 'https://docs.example.test/errors';

/**
 * The app over `t`. Unless `contract: false`, every `app.inject` response is validated against the
 * OpenAPI document the app serves (test/helpers/contract.ts) and a non-conforming one throws.
 */
export async function buildTestApp(t: TestDatabase, options: { contract?: boolean; reports?: ReportSettings } = {}): Promise<FastifyInstance> {
  const app = await buildApp({ db: t.db, log: pino({ level: 'silent' }), docsUrl: TEST_DOCS_URL, cursorSecret: await cursorSecret(t.db), reports: options.reports });
  if (options.contract !== false) validatingInject(app);
  return app;
}

export async function createKey(t: TestDatabase, planId = 'scale', extra: { expiresAt?: Date; countryLock?: string } = {}): Promise<CreatedKey> {
  return createApiKey(t.db, { planId, name: `test ${planId}`, ...extra });
}

export function bearer(key: CreatedKey): { authorization: string } {
  return { authorization: `Bearer ${key.secret}` };
}
