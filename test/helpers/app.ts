/**
 * The real app (the same `buildApp` production uses) over a test database, plus a key to call it with.
 */
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../../src/http/app.ts';
import { createApiKey, type CreatedKey } from '../../src/store/api-keys.ts';
import { cursorSecret } from '../../src/store/settings.ts';
import type { TestDatabase } from './database.ts';

/** Docs base used in tests, so error bodies can be asserted exactly. */
export const TEST_DOCS_URL = 'https://docs.example.test/errors';

export async function buildTestApp(t: TestDatabase): Promise<FastifyInstance> {
  return buildApp({ db: t.db, log: pino({ level: 'silent' }), docsUrl: TEST_DOCS_URL, cursorSecret: await cursorSecret(t.db) });
}

export async function createKey(t: TestDatabase, planId = 'scale', extra: { expiresAt?: Date; countryLock?: string } = {}): Promise<CreatedKey> {
  return createApiKey(t.db, { planId, name: `test ${planId}`, ...extra });
}

export function bearer(key: CreatedKey): { authorization: string } {
  return { authorization: `Bearer ${key.secret}` };
}
