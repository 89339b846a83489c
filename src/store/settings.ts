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
export async function cursorSecret(db: Kysely<DB>): Promise<string> {
  await db
    .insertInto('service_settings')
    .values({ key: 'cursor_secret', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('service_settings').select('value').where('key', '=', 'cursor_secret').executeTakeFirstOrThrow();
  return row.value;
}

/**
 * The website's signing secret (session cookies, CSRF cookies, ALTCHA challenges, unsubscribe links):
 * generated once, on first use, and shared by every API process like {@link cursorSecret}.
 */
export async function siteSecret(db: Kysely<DB>): Promise<string> {
  await db
    .insertInto('service_settings')
    .values({ key: 'site_secret', value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('service_settings').select('value').where('key', '=', 'site_secret').executeTakeFirstOrThrow();
  return row.value;
}
