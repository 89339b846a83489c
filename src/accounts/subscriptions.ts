/**
 * Subscriptions to the service's update e-mails (spec: Website routes `subscribe`, `unsubscribe`):
 * double opt-in (a confirmation link, good once), and an unsubscribe link that works without signing
 * in: `<base64url(address)>.<HMAC-SHA-256(address)>` under the site secret, compared in constant time.
 * It never expires, as an unsubscribe link in an old e-mail must keep working.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors.ts';
import type { DB } from '../store/schema.ts';
import { confirmSubscription, markUnsubscribed, upsertPendingSubscription } from '../store/subscriptions.ts';
import { normalizeEmail } from './email-address.ts';
import { issueEmailToken, redeemEmailToken } from './email-links.ts';

/** Record a pending subscription and make its confirmation token. @returns the token for the link. */
export async function requestSubscription(db: Kysely<DB>, email: string, ttlSeconds: number, now: Date = new Date()): Promise<string> {
  await upsertPendingSubscription(db, email);
  return issueEmailToken(db, 'subscribe', email, null, ttlSeconds, now);
}

/** Spend a confirmation token. @returns the address. @throws ApiError link_invalid. */
export async function confirmSubscriptionToken(db: Kysely<DB>, token: unknown, now: Date = new Date()): Promise<string> {
  const spent = await redeemEmailToken(db, token, 'subscribe', now);
  if (!spent || !(await confirmSubscription(db, spent.email, now))) throw new ApiError('link_invalid', 'This confirmation link is unknown, already used or expired; subscribe again.');
  return spent.email;
}

function signature(secret: string, email: string): Buffer {
  return createHmac('sha256', secret).update(`unsubscribe:${email}`).digest();
}

/** The unsubscribe token of `email` under `secret`. */
export function unsubscribeToken(secret: string, email: string): string {
  return `${Buffer.from(email, 'utf8').toString('base64url')}.${signature(secret, email).toString('base64url')}`;
}

/**
 * Unsubscribe the address a token names.
 * @returns the address. @throws ApiError link_invalid when the token is malformed or its signature wrong.
 */
export async function unsubscribe(db: Kysely<DB>, secret: string, token: unknown, now: Date = new Date()): Promise<string> {
  const invalid = new ApiError('link_invalid', 'This unsubscribe link is not valid; use the link of the latest e-mail.');
  if (typeof token !== 'string' || token.length > 600) throw invalid;
  const [encoded, mac] = token.split('.');
  if (!encoded || !mac) throw invalid;
  const email = normalizeEmail(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (!email) throw invalid;
  const given = Buffer.from(mac, 'base64url');
  const expected = signature(secret, email);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid;
  await markUnsubscribed(db, email, now);
  return email;
}
