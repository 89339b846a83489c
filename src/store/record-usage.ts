/**
 * The monthly record meter in PostgreSQL (table `record_usage`, migration 005): billing data, so it is
 * durable and every change is atomic. A reservation takes records from the allowance under a row lock,
 * so concurrent requests of one key are granted no more than what remains, in total. `used` counts
 * records served, records reserved by requests in flight and records held in blocks by API processes
 * (access/record-blocks.ts): a block is charged when taken and its unspent rest given back later.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

export interface RecordReservation {
  /** Records granted, 0..wanted. */
  granted: number;
  /** Records used in the period after this reservation (in-flight reservations included). */
  used: number;
}

/**
 * Reserve up to `wanted` records of key `keyId` in the month starting `periodStart` (`YYYY-MM-01`).
 * `limit` null means unlimited: the records are counted, never refused.
 */
export async function reserveRecords(
  db: Kysely<DB>,
  keyId: string,
  periodStart: string,
  wanted: number,
  limit: number | null,
): Promise<RecordReservation> {
  if (limit === null) {
    // Nothing to refuse: one atomic upsert counts the records.
    const row = await db
      .insertInto('record_usage')
      .values({ api_key_id: keyId, period_start: periodStart, used: wanted })
      .onConflict((oc) => oc.columns(['api_key_id', 'period_start']).doUpdateSet({ used: sql<number>`record_usage.used + ${wanted}`, updated_at: sql<Date>`now()` }))
      .returning('used')
      .executeTakeFirstOrThrow();
    return { granted: wanted, used: row.used };
  }
  // The common case in one autocommitted statement: the whole reservation fits. The row lock is held
  // for this statement and its commit only (the transaction below holds it over four round trips,
  // which serializes a key's concurrent requests); PostgreSQL re-checks the condition on the latest
  // row version, so concurrent reservations still never pass the limit together.
  const fits = await db
    .updateTable('record_usage')
    .set({ used: sql<number>`used + ${wanted}`, updated_at: sql<Date>`now()` })
    .where('api_key_id', '=', keyId)
    .where('period_start', '=', periodStart)
    .where(sql<boolean>`used + ${wanted} <= ${limit}`)
    .returning('used')
    .executeTakeFirst();
  if (fits) return { granted: wanted, used: fits.used };
  // No row yet this month, or fewer records left than wanted: grant what remains, under the row lock.
  return grantUnderLock(db, keyId, periodStart, (used) => Math.max(0, Math.min(wanted, limit - used)));
}

/**
 * Grant `decide(used)` records of a key's month in one transaction under its row lock (the row made
 * first when the month has none): the lock serializes a key's concurrent grants, so each decides on
 * what the previous one took. @returns the grant and the period's usage after it.
 */
async function grantUnderLock(db: Kysely<DB>, keyId: string, periodStart: string, decide: (used: number) => number): Promise<RecordReservation> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('record_usage')
      .values({ api_key_id: keyId, period_start: periodStart })
      .onConflict((oc) => oc.columns(['api_key_id', 'period_start']).doNothing())
      .execute();
    const row = await trx
      .selectFrom('record_usage')
      .select('used')
      .where('api_key_id', '=', keyId)
      .where('period_start', '=', periodStart)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const granted = decide(row.used);
    if (granted === 0) return { granted, used: row.used };
    const updated = await trx
      .updateTable('record_usage')
      .set({ used: sql<number>`used + ${granted}`, updated_at: sql<Date>`now()` })
      .where('api_key_id', '=', keyId)
      .where('period_start', '=', periodStart)
      .returning('used')
      .executeTakeFirstOrThrow();
    return { granted, used: updated.used };
  });
}

/** What {@link takeRecords} granted. */
export interface RecordTake {
  /** Records granted, 0..: a block (`block` true) or at most the `need` asked for. */
  granted: number;
  /** Whether the grant is a block for the calling process to serve from (else a request's own reservation). */
  block: boolean;
  /** Records used in the period after the grant (blocks held by processes included). */
  used: number;
}

/**
 * Take records of a limited key under the row lock of its month: a block of `blockFor(remaining)`
 * records when that is positive (and covers `need`), else exactly what one request needs, cut to
 * what remains (0 when nothing does). One transaction of a few statements: callers take a block once
 * per many requests, so its cost is not per request. `blockFor` is given the records left
 * (limit - used, at least 0) as seen under the lock, so concurrent takers never pass the limit.
 */
export async function takeRecords(
  db: Kysely<DB>,
  keyId: string,
  periodStart: string,
  need: number,
  limit: number,
  blockFor: (remaining: number) => number,
): Promise<RecordTake> {
  let block = false;
  const take = await grantUnderLock(db, keyId, periodStart, (used) => {
    const remaining = Math.max(0, limit - used);
    const blockSize = blockFor(remaining);
    block = blockSize > 0 && blockSize >= need && blockSize <= remaining;
    return block ? blockSize : Math.min(need, remaining);
  });
  return { ...take, block: block && take.granted > 0 };
}

/** Give back `count` reserved records that were not served. Returns the period's usage after it. */
export async function releaseRecords(db: Kysely<DB>, keyId: string, periodStart: string, count: number): Promise<number> {
  const row = await db
    .updateTable('record_usage')
    .set({ used: sql<number>`greatest(used - ${count}, 0)`, updated_at: sql<Date>`now()` })
    .where('api_key_id', '=', keyId)
    .where('period_start', '=', periodStart)
    .returning('used')
    .executeTakeFirst();
  return row?.used ?? 0;
}

/** Records key `keyId` has used in the month starting `periodStart`; 0 when none. */
export async function recordsUsed(db: Kysely<DB>, keyId: string, periodStart: string): Promise<number> {
  const row = await db
    .selectFrom('record_usage')
    .select('used')
    .where('api_key_id', '=', keyId)
    .where('period_start', '=', periodStart)
    .executeTakeFirst();
  return row?.used ?? 0;
}
