/**
 * Sign-in by e-mailed link (spec: Authentication item 11, "the e-mailed sign-in link"; issue 14): the
 * link's token opens the account of its address, creating it on first use. No answer ever says
 * whether an address has an account: the request is answered the same either way, and an account is
 * created only when the link is used.
 */
import type { Kysely } from 'kysely';
import { upsertAccountByEmail } from '../store/accounts.ts';
import type { DB } from '../store/schema.ts';
import { issueEmailToken, redeemEmailToken } from './email-links.ts';

/** Make a sign-in token for a normalized address. @returns the token for the link. */
export async function issueSignInToken(db: Kysely<DB>, email: string, ttlSeconds: number, now: Date = new Date()): Promise<string> {
  return issueEmailToken(db, 'sign_in', email, null, ttlSeconds, now);
}

/**
 * Spend a sign-in token and open (or create) its account.
 * @returns the account id and whether it was created, or undefined when the token is not good.
 */
export async function completeSignIn(db: Kysely<DB>, token: unknown, now: Date = new Date()): Promise<{ accountId: string; email: string; created: boolean } | undefined> {
  const spent = await redeemEmailToken(db, token, 'sign_in', now);
  if (!spent) return undefined;
  const account = await upsertAccountByEmail(db, spent.email);
  return { accountId: account.id, email: spent.email, created: account.created };
}
