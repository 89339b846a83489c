/**
 * E-mailed single-use links: a random 256-bit token in the link, only its SHA-256 stored
 * (`store/email-tokens.ts`), good once and for `JOBLEDGER_LINK_TTL_SECONDS` (15 minutes by default).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { consumeEmailToken, insertEmailToken, type EmailTokenPurpose } from '../store/email-tokens.ts';
import type { DB } from '../store/schema.ts';

export type { EmailTokenPurpose };

/** 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Make and store a token for `email` (and, for an opt-out, the domain as `subject`).
 * @returns the token, to put in the e-mailed link; it is never stored.
 */
export async function issueEmailToken(db: Kysely<DB>, purpose: EmailTokenPurpose, email: string, subject: string | null, ttlSeconds: number, now: Date = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertEmailToken(db, { tokenHash: tokenHash(token), purpose, email, subject, expiresAt: new Date(now.getTime() + ttlSeconds * 1000) });
  return token;
}

/**
 * Spend a token. The lookup is by hash (an index probe on a digest, so its timing says nothing about
 * the token); a malformed token is refused without a query.
 * @returns what it was issued for, or undefined when it is malformed, unknown, used, expired or of another purpose.
 */
export async function redeemEmailToken(db: Kysely<DB>, token: unknown, purpose: EmailTokenPurpose, now: Date = new Date()): Promise<{ email: string; subject: string | null } | undefined> {
  if (typeof token !== 'string' || !TOKEN.test(token)) return undefined;
  return consumeEmailToken(db, tokenHash(token), purpose, now);
}
