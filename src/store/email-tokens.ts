/**
 * E-mailed single-use links (table `email_tokens`, migration 010). Only the SHA-256 of a token is
 * stored; the service in `accounts/email-links.ts` makes and hashes tokens.
 */
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

export type EmailTokenPurpose = 'sign_in' | 'optout' | 'subscribe' | 'submission';

/** Store a token's hash. */
export async function insertEmailToken(
  db: Kysely<DB>,
  row: { tokenHash: Buffer; purpose: EmailTokenPurpose; email: string; subject: string | null; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('email_tokens')
    .values({ token_hash: row.tokenHash, purpose: row.purpose, email: row.email, subject: row.subject, expires_at: row.expiresAt })
    .execute();
}

/**
 * Spend a token: one conditional UPDATE marks it used if it has `purpose`, is unused and unexpired at
 * `now`, so a token works once even when two requests present it at the same instant.
 * @returns the address and subject it was made for, or undefined (unknown, used, expired, other purpose).
 */
export async function consumeEmailToken(db: Kysely<DB>, tokenHash: Buffer, purpose: EmailTokenPurpose, now: Date): Promise<{ email: string; subject: string | null } | undefined> {
  return db
    .updateTable('email_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['email', 'subject'])
    .executeTakeFirst();
}

/** Delete tokens that expired before `before`; returns how many. */
export async function deleteExpiredEmailTokens(db: Kysely<DB>, before: Date): Promise<number> {
  const result = await db.deleteFrom('email_tokens').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
