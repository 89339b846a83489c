/**
 * The API key service (spec: Authentication; API key state): key secrets and every step of a key's
 * life — create, authenticate, list, rotate, revoke, rename. It decides and generates; the key
 * repository (`store/api-keys.ts`) only stores rows (the split of immich's `api-key.service.ts` and
 * `api-key.repository.ts`).
 *
 * A key reads `jl_<prefix>_<secret>`: `jl_<prefix>` is the short non-secret `key_prefix` label and
 * the lookup handle; the whole string is the secret. Only its SHA-256 is stored, and hashes are
 * compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  findKey,
  findKeyWithPlan,
  insertApiKey,
  listKeysWithUsage,
  markKeyRevoked,
  replaceSecretHash,
  setKeyName,
  touchKeyUse,
} from '../store/api-keys.ts';
import type { KeyTermRow } from '../store/api-keys.ts';
import type { ApiKeyRow, DB, PlanRow } from '../store/schema.ts';
import { noteKeyChanged, type KeyCache } from './key-cache.ts';
import { nextUtcMonthStart, utcMonthStart } from './periods.ts';

const PREFIX_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const PREFIX_LENGTH = 8;
/** 32 random bytes in base64url: 43 characters, 256 bits of entropy. */
const SECRET_LENGTH = 43;
const KEY_PATTERN = new RegExp(`^jl_([${PREFIX_ALPHABET}]{${PREFIX_LENGTH}})_([A-Za-z0-9_-]{${SECRET_LENGTH}})$`);

export interface NewKeyMaterial {
  /** The full key, shown once and never stored. */
  secret: string;
  /** `jl_<8 chars>`: non-secret label, stable across rotation. */
  keyPrefix: string;
  /** SHA-256 of `secret`, 32 bytes. */
  hash: Buffer;
}

/** SHA-256 of a presented key string. */
export function hashKey(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** A fresh random key prefix (`jl_` + 8 characters from an unambiguous alphabet). */
function newKeyPrefix(): string {
  const bytes = randomBytes(PREFIX_LENGTH);
  let prefix = '';
  for (const byte of bytes) prefix += PREFIX_ALPHABET[byte % PREFIX_ALPHABET.length];
  return `jl_${prefix}`;
}

/** New secret for `keyPrefix` (a new key, or a rotation that keeps the prefix). */
export function newKeyMaterial(keyPrefix: string = newKeyPrefix()): NewKeyMaterial {
  const secret = `${keyPrefix}_${randomBytes(32).toString('base64url')}`;
  return { secret, keyPrefix, hash: hashKey(secret) };
}

/** The `key_prefix` of a well-formed key string, or undefined. */
export function keyPrefixOf(presented: string): string | undefined {
  const match = KEY_PATTERN.exec(presented);
  return match ? `jl_${match[1]}` : undefined;
}

/**
 * Extract the key from an `Authorization` header value. Accepted (spec: Authentication, item 3):
 * `Bearer <key>` in any letter case, and the bare key with no scheme. Anything else yields undefined.
 */
export function keyFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const scheme = /^bearer\s+(\S+)$/i.exec(value);
  if (scheme) return scheme[1];
  return /^\S+$/.test(value) ? value : undefined;
}

const DUMMY_HASH = hashKey('jl_dummy_value_for_constant_time');

/**
 * Constant-time comparison of a presented key against a stored hash. When no row was found the
 * comparison still runs (against a dummy) so timing does not reveal whether a prefix exists.
 */
export function keyMatches(presented: string, storedHash: Buffer | undefined): boolean {
  const presentedHash = hashKey(presented);
  const reference = storedHash && storedHash.length === presentedHash.length ? storedHash : DUMMY_HASH;
  const equal = timingSafeEqual(presentedHash, reference);
  return equal && storedHash !== undefined && reference === storedHash;
}

export interface CreateKeyInput {
  planId: string;
  name?: string;
  /** ISO-3166 alpha-2 for a country-locked key. */
  countryLock?: string;
  expiresAt?: Date;
  /** Add the key to an existing account; a new account is created otherwise. */
  accountId?: string;
}

export interface CreatedKey {
  id: string;
  accountId: string;
  keyPrefix: string;
  /** The secret, to show once. */
  secret: string;
  planId: string;
}

/** Thrown for an operator mistake (unknown plan, unknown account, unknown key); the message says which. */
export class KeyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyInputError';
  }
}

/** Fresh prefixes tried before giving up; a collision among 32^8 prefixes is astronomically unlikely. */
const PREFIX_ATTEMPTS = 5;

/**
 * Create a key; returns its secret exactly once.
 * @throws KeyInputError for an unknown plan or account.
 */
export async function createApiKey(db: Kysely<DB>, input: CreateKeyInput): Promise<CreatedKey> {
  // A prefix collision is astronomically unlikely; retrying keeps the unique constraint honest anyway.
  for (let attempt = 0; attempt < PREFIX_ATTEMPTS; attempt++) {
    const material = newKeyMaterial();
    const result = await insertApiKey(db, {
      planId: input.planId,
      name: input.name ?? null,
      keyPrefix: material.keyPrefix,
      secretHash: material.hash,
      countryLock: input.countryLock ?? null,
      expiresAt: input.expiresAt ?? null,
      accountId: input.accountId || null,
    });
    if (result.inserted) return { id: result.id, accountId: result.accountId, keyPrefix: material.keyPrefix, secret: material.secret, planId: input.planId };
    if (result.reason === 'unknown_plan') throw new KeyInputError(`unknown plan "${input.planId}"; see \`jobledger plans\``);
    if (result.reason === 'unknown_account') throw new KeyInputError(`unknown account "${input.accountId}"`);
  }
  throw new Error('could not allocate a unique key prefix');
}

/** A key that authenticated, with the plan it holds now. */
export interface AuthenticatedKey {
  key: ApiKeyRow;
  plan: PlanRow;
  /** The paid term when a subscription pays for the plan (billing, migration 011); absent otherwise. */
  term?: KeyTermRow | null;
}

/**
 * The `renews_or_expires` instant of a key (spec: GET /v1/me, "next billing date, or null"):
 * 1. the key's own expiry, when it has one;
 * 2. else, when a subscription pays for its plan (src/billing): the end of the period paid for while
 *    it renews, or the instant the plan lapses when it will not renew; null once it has lapsed;
 * 3. else, for a paid plan given by the operator (`jobledger keys create --plan growth`): the next
 *    renewal of the record allowance, the 1st of next month 00:00 UTC;
 * 4. else null (a free key without expiry).
 */
export function renewsOrExpires(authenticated: AuthenticatedKey, now: Date): Date | null {
  const { key, plan, term } = authenticated;
  if (key.expires_at) return key.expires_at;
  if (term) {
    if (term.lapses_at === null) return term.renews_at;
    return term.lapses_at.getTime() > now.getTime() ? term.lapses_at : null;
  }
  return plan.price_cents > 0 ? nextUtcMonthStart(now) : null;
}

/**
 * Resolve a presented key string to an active, unexpired key and the plan it holds at `now`. Unknown, malformed, revoked and expired
 * keys all return undefined, so callers answer them identically (spec: Authentication, item 6).
 * With `cache` the key row is read through it (access/key-cache.ts); the secret is compared either way.
 */
export async function authenticateKey(db: Kysely<DB>, presented: string, now: Date = new Date(), cache?: KeyCache): Promise<AuthenticatedKey | undefined> {
  const prefix = keyPrefixOf(presented);
  const row = prefix ? await (cache ? cache.find(db, prefix, now) : findKeyWithPlan(db, prefix, now)) : undefined;
  // Compared even when no row was found, so the timing does not tell whether a prefix exists.
  const matches = keyMatches(presented, row?.secret_hash);
  if (!row || !matches) return undefined;
  const { plan_row: plan, term, ...key } = row;
  if (key.status !== 'active') return undefined;
  if (key.expires_at && key.expires_at.getTime() <= now.getTime()) return undefined;
  return { key, plan, term };
}

export interface KeyListing {
  id: string;
  accountId: string;
  keyPrefix: string;
  name: string | null;
  planId: string;
  countryLock: string | null;
  status: 'active' | 'revoked' | 'expired';
  createdAt: Date;
  expiresAt: Date | null;
  /** Records served in the current UTC month. */
  recordsThisMonth: number;
  /** When the key last authenticated a request, to the minute (see {@link recordKeyUse}); null if never. */
  lastUsedAt: Date | null;
}

/** Every key (or, with `accountId`, the keys of one account), newest first, without any secret material; the plan is the one held at `now`. */
export async function listApiKeys(db: Kysely<DB>, now: Date = new Date(), accountId?: string): Promise<KeyListing[]> {
  const rows = await listKeysWithUsage(db, utcMonthStart(now), now, accountId);
  return rows.map((r) => ({
    id: r.id,
    accountId: r.account_id,
    keyPrefix: r.key_prefix,
    name: r.name,
    planId: r.plan_id,
    countryLock: r.country_lock,
    status: r.status === 'revoked' ? 'revoked' : r.expires_at && r.expires_at.getTime() <= now.getTime() ? 'expired' : 'active',
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    recordsThisMonth: r.used ?? 0,
    lastUsedAt: r.last_used_at,
  }));
}

/** How stale `api_keys.last_used_at` may get, seconds: it is written at most once a minute per key. */
export const KEY_USE_RESOLUTION_SECONDS = 60;

/**
 * Stamp `api_keys.last_used_at` with `now`, unless it was stamped less than
 * {@link KEY_USE_RESOLUTION_SECONDS} ago: an operator sees which keys are in use (`jobledger keys
 * list`) without every request writing the row. Returns whether the row was written.
 */
export async function recordKeyUse(db: Kysely<DB>, keyId: string, now: Date = new Date()): Promise<boolean> {
  return touchKeyUse(db, keyId, now, new Date(now.getTime() - KEY_USE_RESOLUTION_SECONDS * 1000));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Find a key by its id (uuid) or its `key_prefix` (`jl_xxxxxxxx`), as an operator types them.
 * @throws KeyInputError when none matches.
 */
async function findKeyRow(db: Kysely<DB>, idOrPrefix: string): Promise<ApiKeyRow> {
  const handle = idOrPrefix.trim();
  const row = await findKey(db, UUID.test(handle) ? { id: handle.toLowerCase() } : { keyPrefix: handle });
  if (!row) throw new KeyInputError(`no key has the id or prefix "${handle}"; see \`jobledger keys list\``);
  return row;
}

/** A rotated key: same id and prefix, new secret (shown once). */
export interface RotatedKey {
  id: string;
  keyPrefix: string;
  secret: string;
}

/**
 * Give a key a new secret (spec: API key state, "active → rotate → active"). The id, prefix, plan,
 * meters and usage history stay: they hang on the row, not on the secret. The old secret stops
 * working at once (a lost secret may be in someone else's hands).
 * @throws KeyInputError for an unknown, revoked or expired key.
 */
export async function rotateApiKey(db: Kysely<DB>, idOrPrefix: string, now: Date = new Date()): Promise<RotatedKey> {
  const key = await findKeyRow(db, idOrPrefix);
  if (key.status === 'revoked') throw new KeyInputError(`key ${key.key_prefix} is revoked; revocation is permanent, create a new key instead`);
  if (key.expires_at && key.expires_at.getTime() <= now.getTime()) {
    throw new KeyInputError(`key ${key.key_prefix} expired at ${key.expires_at.toISOString()}; create a new key instead`);
  }
  const material = newKeyMaterial(key.key_prefix);
  const replaced = await replaceSecretHash(db, key.id, material.hash, now);
  noteKeyChanged();
  if (!replaced) throw new KeyInputError(`key ${key.key_prefix} was revoked meanwhile`);
  return { id: key.id, keyPrefix: key.key_prefix, secret: material.secret };
}

/**
 * Revoke a key at once and for good (spec: API key state, "Immediate and permanent. The row is kept
 * for audit"). Revoking a revoked key changes nothing and reports when it was revoked.
 * @throws KeyInputError for an unknown key.
 */
export async function revokeApiKey(db: Kysely<DB>, idOrPrefix: string, now: Date = new Date()): Promise<{ id: string; keyPrefix: string; revokedAt: Date; already: boolean }> {
  const key = await findKeyRow(db, idOrPrefix);
  if (key.status === 'revoked' && key.revoked_at) return { id: key.id, keyPrefix: key.key_prefix, revokedAt: key.revoked_at, already: true };
  const revokedAt = await markKeyRevoked(db, key.id, now);
  noteKeyChanged();
  // Revoked by someone else meanwhile: report their revocation.
  if (!revokedAt) return revokeApiKey(db, key.id, now);
  return { id: key.id, keyPrefix: key.key_prefix, revokedAt, already: false };
}

/**
 * Set (or, with an empty name, clear) a key's label.
 * @throws KeyInputError for an unknown key.
 */
export async function renameApiKey(db: Kysely<DB>, idOrPrefix: string, name: string): Promise<{ id: string; keyPrefix: string; name: string | null }> {
  const key = await findKeyRow(db, idOrPrefix);
  const label = name.trim() === '' ? null : name.trim();
  await setKeyName(db, key.id, label);
  return { id: key.id, keyPrefix: key.key_prefix, name: label };
}
