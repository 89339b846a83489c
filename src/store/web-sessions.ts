/**
 * Browser sessions (table `web_sessions`, migration 010), the storage behind `site/session-store.ts`.
 * The session id is stored as its SHA-256 only.
 */
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** The data of an unexpired session, or undefined. */
export async function readWebSession(db: Kysely<DB>, idHash: Buffer, now: Date): Promise<unknown> {
  const row = await db.selectFrom('web_sessions').select('data').where('id_hash', '=', idHash).where('expires_at', '>', now).executeTakeFirst();
  return row?.data;
}

/** Insert or replace a session. */
export async function writeWebSession(db: Kysely<DB>, row: { idHash: Buffer; accountId: string | null; data: unknown; expiresAt: Date }): Promise<void> {
  const values = { id_hash: row.idHash, account_id: row.accountId, data: JSON.stringify(row.data), expires_at: row.expiresAt };
  await db
    .insertInto('web_sessions')
    .values(values)
    .onConflict((oc) => oc.column('id_hash').doUpdateSet({ account_id: values.account_id, data: values.data, expires_at: values.expires_at }))
    .execute();
}

/** Delete a session (sign-out, rotation). */
export async function deleteWebSession(db: Kysely<DB>, idHash: Buffer): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

/** Delete sessions that expired before `before`; returns how many. */
export async function deleteExpiredWebSessions(db: Kysely<DB>, before: Date): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
