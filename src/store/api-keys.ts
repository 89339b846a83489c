/**
 * The API key repository (spec: Authentication and API key state). Secrets never reach this module's
 * tables: only `key_prefix` (non-secret) and the SHA-256 `secret_hash`.
 */
import { sql, type Kysely } from 'kysely';
import { keyMatches, keyPrefixOf, newKeyMaterial } from '../access/api-keys.ts';
import type { ApiKeyRow, DB, PlanRow } from './schema.ts';

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

/** Thrown for an operator mistake (unknown plan, unknown account); the message says which. */
export class KeyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyInputError';
  }
}

/** Create a key; returns its secret exactly once. */
export async function createApiKey(db: Kysely<DB>, input: CreateKeyInput): Promise<CreatedKey> {
  return db.transaction().execute(async (trx) => {
    const plan = await trx.selectFrom('plans').select('id').where('id', '=', input.planId).executeTakeFirst();
    if (!plan) throw new KeyInputError(`unknown plan "${input.planId}"; see \`jobledger plans\``);
    let accountId = input.accountId;
    if (accountId) {
      const account = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
      if (!account) throw new KeyInputError(`unknown account "${accountId}"`);
    } else {
      accountId = (await trx.insertInto('accounts').values({ name: input.name ?? null, email: null }).returning('id').executeTakeFirstOrThrow()).id;
    }
    // A prefix collision is astronomically unlikely; retrying keeps the unique constraint honest anyway.
    for (let attempt = 0; attempt < 5; attempt++) {
      const material = newKeyMaterial();
      const clash = await trx.selectFrom('api_keys').select('id').where('key_prefix', '=', material.keyPrefix).executeTakeFirst();
      if (clash) continue;
      const row = await trx
        .insertInto('api_keys')
        .values({
          account_id: accountId,
          name: input.name ?? null,
          key_prefix: material.keyPrefix,
          secret_hash: material.hash,
          plan_id: input.planId,
          country_lock: input.countryLock ?? null,
          expires_at: input.expiresAt ?? null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, accountId, keyPrefix: material.keyPrefix, secret: material.secret, planId: input.planId };
    }
    throw new Error('could not allocate a unique key prefix');
  });
}

/** A key that authenticated, with its plan. */
export interface AuthenticatedKey {
  key: ApiKeyRow;
  plan: PlanRow;
}

/**
 * Resolve a presented key string to an active, unexpired key. Unknown, malformed, revoked and expired
 * keys all return undefined, so callers answer them identically (spec: Authentication, item 6).
 */
export async function authenticateKey(db: Kysely<DB>, presented: string, now: Date = new Date()): Promise<AuthenticatedKey | undefined> {
  const prefix = keyPrefixOf(presented);
  // Key and plan in one statement: every keyed request runs this, so it is one round trip, not two.
  const row = prefix
    ? await db
        .selectFrom('api_keys as k')
        .innerJoin('plans as p', 'p.id', 'k.plan_id')
        .selectAll('k')
        .select(sql<PlanRow>`to_jsonb(p)`.as('plan_row'))
        .where('k.key_prefix', '=', prefix)
        .executeTakeFirst()
    : undefined;
  const matches = keyMatches(presented, row?.secret_hash);
  if (!row || !matches) return undefined;
  const { plan_row: plan, ...key } = row;
  if (key.status !== 'active') return undefined;
  if (key.expires_at && key.expires_at.getTime() <= now.getTime()) return undefined;
  return { key, plan };
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

/** Every key, newest first, without any secret material. */
export async function listApiKeys(db: Kysely<DB>, now: Date = new Date()): Promise<KeyListing[]> {
  const month = `${now.toISOString().slice(0, 7)}-01`;
  const rows = await db
    .selectFrom('api_keys')
    .leftJoin('record_usage as u', (join) => join.onRef('u.api_key_id', '=', 'api_keys.id').on('u.period_start', '=', month))
    .select(['id', 'account_id', 'key_prefix', 'name', 'plan_id', 'country_lock', 'status', 'created_at', 'expires_at', 'last_used_at', 'u.used'])
    .orderBy('created_at', 'desc')
    .execute();
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
  const staleBefore = new Date(now.getTime() - KEY_USE_RESOLUTION_SECONDS * 1000);
  const result = await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Find a key by its id (uuid) or its `key_prefix` (`jl_xxxxxxxx`), as an operator types them.
 * @throws KeyInputError when none matches.
 */
async function findKeyRow(db: Kysely<DB>, idOrPrefix: string): Promise<ApiKeyRow> {
  const handle = idOrPrefix.trim();
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where(UUID.test(handle) ? 'id' : 'key_prefix', '=', UUID.test(handle) ? handle.toLowerCase() : handle)
    .executeTakeFirst();
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
  const updated = await db
    .updateTable('api_keys')
    .set({ secret_hash: material.hash, rotated_at: now })
    .where('id', '=', key.id)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (updated.numUpdatedRows !== 1n) throw new KeyInputError(`key ${key.key_prefix} was revoked meanwhile`);
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
  const row = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: now })
    .where('id', '=', key.id)
    .where('status', '=', 'active')
    .returning('revoked_at')
    .executeTakeFirst();
  if (!row?.revoked_at) return revokeApiKey(db, key.id, now);
  return { id: key.id, keyPrefix: key.key_prefix, revokedAt: row.revoked_at, already: false };
}

/**
 * Set (or, with an empty name, clear) a key's label.
 * @throws KeyInputError for an unknown key.
 */
export async function renameApiKey(db: Kysely<DB>, idOrPrefix: string, name: string): Promise<{ id: string; keyPrefix: string; name: string | null }> {
  const key = await findKeyRow(db, idOrPrefix);
  const label = name.trim() === '' ? null : name.trim();
  await db.updateTable('api_keys').set({ name: label }).where('id', '=', key.id).execute();
  return { id: key.id, keyPrefix: key.key_prefix, name: label };
}
