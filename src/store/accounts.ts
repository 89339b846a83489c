/**
 * The account repository (table `accounts`, migrations 002 and 010): website accounts are keyed by
 * their e-mail address (stored lower-cased by `accounts/`), CLI-made accounts have none.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface AccountRecord {
  id: string;
  email: string | null;
  createdAt: Date;
  freeKeyAt: Date | null;
}

/** The account of `email`, created when there is none (one statement, safe under concurrent sign-ins). */
export async function upsertAccountByEmail(db: Kysely<DB>, email: string): Promise<{ id: string; created: boolean }> {
  const row = await sql<{ id: string; created: boolean }>`
    INSERT INTO accounts (name, email) VALUES (NULL, ${email})
    ON CONFLICT (email) WHERE email IS NOT NULL DO UPDATE SET email = EXCLUDED.email
    RETURNING id, (xmax = 0) AS created`.execute(db);
  return row.rows[0]!;
}

/** The account `id`, or undefined. */
export async function findAccount(db: Kysely<DB>, id: string): Promise<AccountRecord | undefined> {
  const row = await db.selectFrom('accounts').select(['id', 'email', 'created_at', 'free_key_at']).where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, email: row.email, createdAt: row.created_at, freeKeyAt: row.free_key_at } : undefined;
}

/**
 * Mark the account's free key as taken, once: returns true for the one caller that marked it
 * (a conditional UPDATE, so two simultaneous requests cannot both take it).
 */
export async function claimFreeKey(db: Kysely<DB>, accountId: string, at: Date): Promise<boolean> {
  const result = await db.updateTable('accounts').set({ free_key_at: at }).where('id', '=', accountId).where('free_key_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Give the free key back (its creation failed after the claim). */
export async function releaseFreeKey(db: Kysely<DB>, accountId: string): Promise<void> {
  await db.updateTable('accounts').set({ free_key_at: null }).where('id', '=', accountId).execute();
}
