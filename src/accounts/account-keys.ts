/**
 * Key self-service for a signed-in account (spec: Website routes, key management; API key state;
 * issue 14). Every step goes through the one key service (`access/api-keys.ts`) the CLI uses; this
 * module adds what the website needs on top: the key must belong to the session's account, and an
 * account takes one free `explore` key.
 *
 * A key id of another account, or no key at all, is answered 404 `not_found` alike, so an account
 * cannot learn which ids exist.
 */
import type { Kysely } from 'kysely';
import { createApiKey, listApiKeys, renameApiKey, revokeApiKey, rotateApiKey, type CreatedKey, type KeyListing, type RotatedKey } from '../access/api-keys.ts';
import type { RequestLimiter } from '../access/request-limits.ts';
import { ApiError } from '../domain/errors.ts';
import { claimFreeKey, releaseFreeKey } from '../store/accounts.ts';
import { findKey } from '../store/api-keys.ts';
import type { DB } from '../store/schema.ts';

/** The plan of the free key an account may take once (spec: Authentication item 8, `explore`: free). */
export const FREE_PLAN = 'explore';
/** Longest key name accepted, characters. */
export const MAX_KEY_NAME = 80;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A key of the account as the account page shows it. */
export interface AccountKey extends KeyListing {
  /** Requests the key made today (UTC), from the request counters. */
  requestsToday: number;
}

/** The account's keys, newest first, with records this month and requests today. */
export async function listAccountKeys(db: Kysely<DB>, accountId: string, limiter: RequestLimiter, now: Date = new Date()): Promise<AccountKey[]> {
  const keys = await listApiKeys(db, now, accountId);
  return Promise.all(keys.map(async (key) => ({ ...key, requestsToday: key.status === 'active' ? await limiter.usedToday(key.id) : 0 })));
}

/** A key name from a form: trimmed; empty clears it. @throws ApiError bad_input when too long or not text. */
export function keyName(input: unknown): string {
  if (input === undefined || input === null) return '';
  if (typeof input !== 'string') throw new ApiError('bad_input', '"name" must be text.');
  const name = input.trim();
  if (name.length > MAX_KEY_NAME) throw new ApiError('bad_input', `"name" is ${name.length} characters; at most ${MAX_KEY_NAME} are allowed.`);
  if ([...name].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw new ApiError('bad_input', '"name" must not contain control characters.');
  return name;
}

/**
 * Create the account's free `explore` key; the secret is in the answer and nowhere else.
 * @throws ApiError free_key_taken when the account already took it.
 */
export async function createFreeKey(db: Kysely<DB>, accountId: string, name: string, now: Date = new Date()): Promise<CreatedKey> {
  if (!(await claimFreeKey(db, accountId, now))) {
    throw new ApiError('free_key_taken', 'This account already took its free explore key; rotate it if the secret is lost, or buy a plan for another key.');
  }
  try {
    return await createApiKey(db, { planId: FREE_PLAN, accountId, ...(name ? { name } : {}) });
  } catch (error) {
    await releaseFreeKey(db, accountId);
    throw error;
  }
}

/** The id of a key the account owns. @throws ApiError not_found otherwise. */
async function ownedKeyId(db: Kysely<DB>, accountId: string, keyId: string): Promise<string> {
  const row = UUID.test(keyId) ? await findKey(db, { id: keyId.toLowerCase() }) : undefined;
  if (!row || row.account_id !== accountId) throw new ApiError('not_found', 'This account has no key with that id.');
  return row.id;
}

/**
 * Rotate a key of the account: same id, prefix, plan, meters and usage; a new secret, shown once.
 * @throws ApiError not_found (not the account's key), key_not_active (revoked or expired).
 */
export async function rotateAccountKey(db: Kysely<DB>, accountId: string, keyId: string, now: Date = new Date()): Promise<RotatedKey> {
  const id = await ownedKeyId(db, accountId, keyId);
  try {
    return await rotateApiKey(db, id, now);
  } catch (error) {
    if (error instanceof Error && error.name === 'KeyInputError') throw new ApiError('key_not_active', 'This key is revoked or expired and cannot be rotated; revocation is permanent.');
    throw error;
  }
}

/** Revoke a key of the account, at once and for good (revoking a revoked key changes nothing). @throws ApiError not_found. */
export async function revokeAccountKey(db: Kysely<DB>, accountId: string, keyId: string, now: Date = new Date()): Promise<{ keyPrefix: string; revokedAt: Date }> {
  const id = await ownedKeyId(db, accountId, keyId);
  const revoked = await revokeApiKey(db, id, now);
  return { keyPrefix: revoked.keyPrefix, revokedAt: revoked.revokedAt };
}

/** Rename a key of the account (an empty name clears it). @throws ApiError not_found, bad_input. */
export async function renameAccountKey(db: Kysely<DB>, accountId: string, keyId: string, name: unknown): Promise<{ keyPrefix: string; name: string | null }> {
  const label = keyName(name);
  const id = await ownedKeyId(db, accountId, keyId);
  const renamed = await renameApiKey(db, id, label);
  return { keyPrefix: renamed.keyPrefix, name: renamed.name };
}
