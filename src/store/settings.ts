/**
 * Service-wide settings every process must share, kept in PostgreSQL (`service_settings`).
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * The HMAC secret of listing cursors: generated once, on first use, and shared by every API process
 * so a cursor stays valid across restarts and processes (ARCHITECTURE "Keyset paging").
 */
export function cursorSecret(db: Kysely<DB>): Promise<string> {
  return serviceSecret(db, 'cursor_secret');
}

/**
 * The website's signing secret (session cookies, CSRF cookies, ALTCHA challenges, unsubscribe links):
 * generated once, on first use, and shared by every API process like {@link cursorSecret}.
 */
export function siteSecret(db: Kysely<DB>): Promise<string> {
  return serviceSecret(db, 'site_secret');
}

/**
 * The secret stored under `key`: 32 random bytes (base64url) inserted by whichever process asks first;
 * a concurrent insert loses quietly and every process reads the one stored value.
 */
async function serviceSecret(db: Kysely<DB>, key: string): Promise<string> {
  await db
    .insertInto('service_settings')
    .values({ key, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('service_settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}
