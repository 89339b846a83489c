/**
 * The API key repository (tables `api_keys` and `accounts`, migration 002; spec: Authentication and
 * API key state). It stores and reads key rows; secrets never reach it: only the non-secret
 * `key_prefix` and the SHA-256 `secret_hash` that `access/api-keys.ts` (the key service) computes.
 */
import { sql, type Kysely } from 'kysely';
import type { ApiKeyRow, DB, PlanRow } from './schema.ts';

/** A key row to insert: everything but what the database generates. */
export interface NewApiKeyRow {
  planId: string;
  name: string | null;
  keyPrefix: string;
  secretHash: Buffer;
  countryLock: string | null;
  expiresAt: Date | null;
  /** The account the key joins; null creates an account named `name`. */
  accountId: string | null;
}

/** What {@link insertApiKey} did: the new row, or why nothing was written. */
export type InsertApiKeyResult =
  | { inserted: true; id: string; accountId: string }
  | { inserted: false; reason: 'unknown_plan' | 'unknown_account' | 'prefix_taken' };

/** Raised inside the insert transaction to roll it back; never leaves this module. */
class Refused extends Error {
  readonly reason: 'unknown_plan' | 'unknown_account' | 'prefix_taken';
  constructor(reason: 'unknown_plan' | 'unknown_account' | 'prefix_taken') {
    super(reason);
    this.reason = reason;
  }
}

/**
 * Insert a key (and its account when `accountId` is null) in one transaction. Nothing is written when
 * the plan or the account does not exist or another key holds the prefix.
 */
export async function insertApiKey(db: Kysely<DB>, row: NewApiKeyRow): Promise<InsertApiKeyResult> {
  try {
    return await db.transaction().execute(async (trx) => {
      const plan = await trx.selectFrom('plans').select('id').where('id', '=', row.planId).executeTakeFirst();
      if (!plan) throw new Refused('unknown_plan');
      let accountId = row.accountId;
      if (accountId) {
        const account = await trx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
        if (!account) throw new Refused('unknown_account');
      } else {
        accountId = (await trx.insertInto('accounts').values({ name: row.name, email: null }).returning('id').executeTakeFirstOrThrow()).id;
      }
      const clash = await trx.selectFrom('api_keys').select('id').where('key_prefix', '=', row.keyPrefix).executeTakeFirst();
      if (clash) throw new Refused('prefix_taken');
      const { id } = await trx
        .insertInto('api_keys')
        .values({
          account_id: accountId,
          name: row.name,
          key_prefix: row.keyPrefix,
          secret_hash: row.secretHash,
          plan_id: row.planId,
          country_lock: row.countryLock,
          expires_at: row.expiresAt,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { inserted: true as const, id, accountId };
    });
  } catch (error) {
    if (error instanceof Refused) return { inserted: false, reason: error.reason };
    throw error;
  }
}

/** The paid term of a key bought through a payment provider (table `key_subscriptions`), as read with the key. */
export interface KeyTermRow {
  /** End of the period paid for; the next renewal while the subscription renews. */
  renews_at: Date;
  /** When set: the subscription does not renew and the key's plan lapses to its `plan_after` at this instant. */
  lapses_at: Date | null;
}

/**
 * The plan a key holds at `now`, as SQL over `api_keys as k` left-joined to `key_subscriptions as s`:
 * its own `plan_id`, unless its subscription has lapsed (`lapses_at` passed), when it is the
 * subscription's `plan_after`. The downgrade at the period end is thus a check at read time, exact to
 * the instant whether or not the provider's last notification has arrived (docs/architecture.md
 * "Billing").
 */
function heldPlanId(now: Date) {
  return sql<string>`CASE WHEN s.lapses_at IS NOT NULL AND s.lapses_at <= ${now} THEN s.plan_after ELSE k.plan_id END`;
}

/**
 * The key holding `keyPrefix`, whatever its state, with the plan it holds at `now` (see
 * {@link heldPlanId}; `plan_id` of the returned row is that plan too) and its paid term, if a
 * subscription pays for it: one statement, because every keyed request runs it.
 */
export async function findKeyWithPlan(
  db: Kysely<DB>,
  keyPrefix: string,
  now: Date = new Date(),
): Promise<(ApiKeyRow & { plan_row: PlanRow; term: KeyTermRow | null }) | undefined> {
  const row = await db
    .selectFrom('api_keys as k')
    .leftJoin('key_subscriptions as s', 's.api_key_id', 'k.id')
    .innerJoin('plans as p', (join) => join.on(sql<boolean>`p.id = ${heldPlanId(now)}`))
    .selectAll('k')
    .select(sql<PlanRow>`to_jsonb(p)`.as('plan_row'))
    .select(['s.renews_at as term_renews_at', 's.lapses_at as term_lapses_at'])
    .where('k.key_prefix', '=', keyPrefix)
    .executeTakeFirst();
  if (!row) return undefined;
  const { term_renews_at: renewsAt, term_lapses_at: lapsesAt, ...key } = row;
  return { ...key, plan_id: key.plan_row.id, term: renewsAt ? { renews_at: renewsAt, lapses_at: lapsesAt ?? null } : null };
}

/**
 * Set the plan of key `keyId` (on `db` or inside a caller's transaction). Returns false when no key
 * has that id. The plan must exist (foreign key); metering reads the new plan from the next request on.
 */
export async function setKeyPlan(db: Kysely<DB>, keyId: string, planId: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ plan_id: planId }).where('id', '=', keyId).executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** The key whose id is `id`, or else whose prefix is `keyPrefix`. */
export async function findKey(db: Kysely<DB>, by: { id: string } | { keyPrefix: string }): Promise<ApiKeyRow | undefined> {
  const query = db.selectFrom('api_keys').selectAll();
  return ('id' in by ? query.where('id', '=', by.id) : query.where('key_prefix', '=', by.keyPrefix)).executeTakeFirst();
}

/** The id of a key named `name`, if any. */
export async function findKeyIdByName(db: Kysely<DB>, name: string): Promise<string | undefined> {
  return (await db.selectFrom('api_keys').select('id').where('name', '=', name).executeTakeFirst())?.id;
}

/** A key row with the records it used in one month (0 when it has no meter row then). */
export type KeyUsageRow = Pick<ApiKeyRow, 'id' | 'account_id' | 'key_prefix' | 'name' | 'plan_id' | 'country_lock' | 'status' | 'created_at' | 'expires_at' | 'last_used_at'> & {
  used: number | null;
};

/**
 * Every key (or only the keys of `accountId`), newest first, with the plan it holds at `now` and its
 * usage in the month starting `periodStart` (`YYYY-MM-01`).
 */
export async function listKeysWithUsage(db: Kysely<DB>, periodStart: string, now: Date = new Date(), accountId?: string): Promise<KeyUsageRow[]> {
  let query = db
    .selectFrom('api_keys as k')
    .leftJoin('record_usage as u', (join) => join.onRef('u.api_key_id', '=', 'k.id').on('u.period_start', '=', periodStart))
    .leftJoin('key_subscriptions as s', 's.api_key_id', 'k.id')
    .select(['k.id', 'k.account_id', 'k.key_prefix', 'k.name', 'k.country_lock', 'k.status', 'k.created_at', 'k.expires_at', 'k.last_used_at', 'u.used'])
    .select(heldPlanId(now).as('plan_id'));
  if (accountId !== undefined) query = query.where('k.account_id', '=', accountId);
  return query.orderBy('k.created_at', 'desc').execute();
}

/** Set `last_used_at` to `now` unless it is later than `staleBefore`. Returns whether the row was written. */
export async function touchKeyUse(db: Kysely<DB>, keyId: string, now: Date, staleBefore: Date): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', staleBefore)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Replace the secret hash of an active key. Returns false when the key is not active (any more). */
export async function replaceSecretHash(db: Kysely<DB>, keyId: string, secretHash: Buffer, rotatedAt: Date): Promise<boolean> {
  const updated = await db
    .updateTable('api_keys')
    .set({ secret_hash: secretHash, rotated_at: rotatedAt })
    .where('id', '=', keyId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return updated.numUpdatedRows === 1n;
}

/** Revoke an active key at `revokedAt`. Returns the revocation instant, or undefined when it was not active. */
export async function markKeyRevoked(db: Kysely<DB>, keyId: string, revokedAt: Date): Promise<Date | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({ status: 'revoked', revoked_at: revokedAt })
    .where('id', '=', keyId)
    .where('status', '=', 'active')
    .returning('revoked_at')
    .executeTakeFirst();
  return row?.revoked_at ?? undefined;
}

/** Set a key's label (null clears it). */
export async function setKeyName(db: Kysely<DB>, keyId: string, name: string | null): Promise<void> {
  await db.updateTable('api_keys').set({ name }).where('id', '=', keyId).execute();
}
