/**
 * The crawl-target repository: which boards and feeds the worker reads, and how each crawl went.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { CrawlTarget } from '../domain/crawl-target.ts';
import type { CrawlTargetRow, DB } from './schema.ts';

export interface TargetInput {
  providerId: string;
  board: string;
  companyName?: string;
  companyDomain?: string;
  companyLogo?: string;
  /** Recrawl interval, seconds (default 21600 = 6 hours). */
  intervalSeconds?: number;
}

/** Target id: `<provider>:<board>`. */
export function targetId(providerId: string, board: string): string {
  return `${providerId}:${board}`;
}

/** Create a target, or update its company hints if it exists. Returns the id. */
export async function upsertTarget(db: Kysely<DB>, input: TargetInput): Promise<string> {
  const id = targetId(input.providerId, input.board);
  await db
    .insertInto('crawl_targets')
    .values({
      id,
      provider_id: input.providerId,
      board: input.board,
      company_name: input.companyName ?? null,
      company_domain: input.companyDomain ?? null,
      company_logo: input.companyLogo ?? null,
      ...(input.intervalSeconds ? { interval_seconds: input.intervalSeconds } : {}),
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        company_name: input.companyName ?? null,
        company_domain: input.companyDomain ?? null,
        company_logo: input.companyLogo ?? null,
      }),
    )
    .execute();
  return id;
}

/** Which of `ids` name a stored target. */
export async function existingTargetIds(db: Kysely<DB>, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('crawl_targets').select('id').where('id', 'in', [...ids]).execute()).map((r) => r.id);
}

export async function listTargets(db: Kysely<DB>, options: { enabledOnly?: boolean; ids?: string[] } = {}): Promise<CrawlTargetRow[]> {
  let query = db.selectFrom('crawl_targets').selectAll().orderBy('id');
  if (options.enabledOnly) query = query.where('enabled', '=', true);
  if (options.ids && options.ids.length > 0) query = query.where('id', 'in', options.ids);
  return query.execute();
}

/**
 * Take the crawl lease of a target: at most one process crawls a target at a time, whichever started
 * the crawl (the worker, a second worker, `jobledger ingest`). The lease lives `ttlSeconds` unless its
 * holder renews it ({@link renewCrawlLease}, the holder's heartbeat), so it ends by itself soon after
 * its holder dies. With `takeOverFrom`, a lease still held by exactly that owner is taken too (the
 * caller has proved that owner dead); the owner is compared in the same UPDATE, so a lease renewed or
 * passed on meanwhile is left alone. With `onlyIfDue`, the lease is taken only when the target is
 * enabled and its interval has passed since its last attempt (so a crawl queued twice runs once).
 * Marks the attempt (`last_attempt_at`).
 * @returns the target's current row (with its newest validators), or undefined when it is leased
 *   elsewhere, unknown, or (with `onlyIfDue`) not due.
 */
export async function acquireCrawlLease(
  db: Kysely<DB>,
  targetId: string,
  owner: string,
  options: { ttlSeconds: number; onlyIfDue?: boolean; takeOverFrom?: string },
): Promise<CrawlTargetRow | undefined> {
  let query = db
    .updateTable('crawl_targets')
    .set({
      lease_owner: owner,
      lease_expires_at: sql<Date>`now() + make_interval(secs => ${options.ttlSeconds})`,
      last_attempt_at: sql<Date>`now()`,
    })
    .where('id', '=', targetId)
    .where((eb) =>
      eb.or([
        eb('lease_expires_at', 'is', null),
        eb('lease_expires_at', '<', sql<Date>`now()`),
        ...(options.takeOverFrom !== undefined ? [eb('lease_owner', '=', options.takeOverFrom)] : []),
      ]),
    );
  if (options.onlyIfDue) {
    query = query
      .where('enabled', '=', true)
      .where((eb) => eb.or([eb('last_attempt_at', 'is', null), sql<SqlBool>`last_attempt_at + make_interval(secs => interval_seconds) <= now()`]));
  }
  return query.returningAll().executeTakeFirst();
}

/** Who holds a target's crawl lease, and until when (UTC); undefined when nobody holds a live one. */
export async function crawlLeaseHolder(db: Kysely<DB>, targetId: string): Promise<{ owner: string; expiresAt: Date } | undefined> {
  const row = await db
    .selectFrom('crawl_targets')
    .select(['lease_owner', 'lease_expires_at'])
    .where('id', '=', targetId)
    .where('lease_expires_at', '>=', sql<Date>`now()`)
    .executeTakeFirst();
  return row?.lease_owner && row.lease_expires_at ? { owner: row.lease_owner, expiresAt: row.lease_expires_at } : undefined;
}

/**
 * The holder's heartbeat: extend its lease to `ttlSeconds` from now.
 * @returns false when `owner` does not hold the lease any more (it expired and was taken).
 */
export async function renewCrawlLease(db: Kysely<DB>, targetId: string, owner: string, ttlSeconds: number): Promise<boolean> {
  const result = await db
    .updateTable('crawl_targets')
    .set({ lease_expires_at: sql<Date>`now() + make_interval(secs => ${ttlSeconds})` })
    .where('id', '=', targetId)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Give a lease back (only if `owner` still holds it). */
export async function releaseCrawlLease(db: Kysely<DB>, targetId: string, owner: string): Promise<void> {
  await db.updateTable('crawl_targets').set({ lease_owner: null, lease_expires_at: null }).where('id', '=', targetId).where('lease_owner', '=', owner).execute();
}

/**
 * Enabled targets whose interval has passed since their last attempt and that nobody is crawling.
 */
export async function dueTargets(db: Kysely<DB>): Promise<CrawlTargetRow[]> {
  return db
    .selectFrom('crawl_targets')
    .selectAll()
    .where('enabled', '=', true)
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('last_attempt_at', 'is', null), sql<SqlBool>`last_attempt_at + make_interval(secs => interval_seconds) <= now()`]))
    .orderBy(sql`last_attempt_at asc nulls first`)
    .orderBy('id')
    .execute();
}

/** Advisory-lock namespace of per-host crawl slots (any process of this service uses the same one). */
const HOST_SLOT_LOCK_SPACE = 4_711_002;

/**
 * Crawls a slot holder runs one after another before it gives its slot back. While this process has
 * crawls waiting for a host, a slot passes from one to the next without being unlocked and locked
 * again (two statements on the critical path of every fetch when the host's slots are the bound); the
 * cap gives other processes' waiters, which poll, a turn.
 */
const SLOT_HANDOFFS = 16;

/**
 * How long a slot holder whose queue is empty keeps its slot for this process's next caller before it
 * unlocks, milliseconds. A worker's next crawl of the same host usually asks within a few milliseconds
 * (its lease, then the fetch); without the wait every such crawl paid a lock and an unlock statement
 * (1,252 of the 6,368 statements of a 929-board re-crawl, bench/ingest.ts). Other processes' waiters,
 * which poll every 200 ms, wait at most this much longer; a lingered caller counts toward
 * {@link SLOT_HANDOFFS}.
 */
const SLOT_LINGER_MS = 25;

/** This process's side of one host's slots. */
interface HostSlots {
  /** Callers waiting for a slot, first come first served; each runs its work and settles its caller. */
  waiting: Array<() => Promise<void>>;
  /** Slot numbers this process holds, or is asking PostgreSQL for. */
  taken: Set<number>;
  /** Holders still asking for their lock (not yet serving a caller). */
  asking: number;
  /** A retry is scheduled (every slot was held by other processes). */
  poll?: NodeJS.Timeout;
  /** Holders with an empty queue, lingering for a next caller ({@link SLOT_LINGER_MS}); first in, first given. */
  idle: Array<(caller: () => Promise<void>) => void>;
}

const hostSlots = new Map<string, HostSlots>();

/** Errors to hand a waiting caller instead of running its work (see holdSlot). */
const failed = new WeakMap<() => Promise<void>, unknown>();

/**
 * The next caller for a holder whose queue is empty: one that arrives within {@link SLOT_LINGER_MS}
 * (handed over by `withHostSlot`), or undefined.
 */
function lingerForCaller(state: HostSlots): Promise<(() => Promise<void>) | undefined> {
  return new Promise((resolve) => {
    const take = (caller: () => Promise<void>) => {
      clearTimeout(timer);
      resolve(caller);
    };
    const timer = setTimeout(() => {
      const at = state.idle.indexOf(take);
      if (at >= 0) state.idle.splice(at, 1);
      resolve(undefined);
    }, SLOT_LINGER_MS);
    state.idle.push(take);
  });
}

/** Ask for free slot numbers of `host`, one holder per waiting caller at most. */
function askForSlots(db: Kysely<DB>, host: string, state: HostSlots, slots: number, pollMs: number): void {
  for (let slot = 0; slot < slots && state.asking < state.waiting.length; slot++) {
    if (state.taken.has(slot)) continue;
    state.taken.add(slot);
    state.asking++;
    void holdSlot(db, host, state, slot, slots, pollMs);
  }
}

/**
 * Take slot `slot` of `host` (a session advisory lock on a connection of its own) and serve waiting
 * callers with it, up to {@link SLOT_HANDOFFS}, then unlock. When the lock is another process's, the
 * caller waits for the next round: at once when a slot of this process frees, else after `pollMs`.
 */
async function holdSlot(db: Kysely<DB>, host: string, state: HostSlots, slot: number, slots: number, pollMs: number): Promise<void> {
  let locked = false;
  let errored = false;
  try {
    await db.connection().execute(async (conn) => {
      const key = `${host}#${slot}`;
      const { rows } = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${HOST_SLOT_LOCK_SPACE}, hashtext(${key})) AS ok`.execute(conn);
      locked = rows[0]?.ok === true;
      state.asking--;
      if (!locked) return;
      try {
        for (let served = 0; served < SLOT_HANDOFFS; served++) {
          const next = state.waiting.shift() ?? (await lingerForCaller(state));
          if (!next) break;
          await next();
        }
      } finally {
        // A failed unlock (the session is gone) frees the lock with the session.
        await sql`SELECT pg_advisory_unlock(${HOST_SLOT_LOCK_SPACE}, hashtext(${key}))`.execute(conn).catch(() => undefined);
      }
    });
  } catch (error) {
    // The lock could not be asked for (the database is unreachable): the first waiting caller gets the
    // error, as it would have asking itself; the others ask again.
    if (!locked) {
      errored = true;
      state.asking--;
      const next = state.waiting.shift();
      if (next) failed.set(next, error);
      void next?.();
    }
  } finally {
    state.taken.delete(slot);
    if (state.waiting.length === 0) {
      if (state.taken.size === 0 && hostSlots.get(host) === state) {
        clearTimeout(state.poll);
        hostSlots.delete(host);
      }
    } else if (locked || errored) {
      // A freed slot, or a failed ask that handed its error to a caller: the next round starts at
      // once (each failed ask settles one caller, so a database that is down fails them all promptly).
      askForSlots(db, host, state, slots, pollMs);
    } else {
      state.poll ??= setTimeout(() => {
        state.poll = undefined;
        askForSlots(db, host, state, slots, pollMs);
      }, pollMs);
    }
  }
}

/**
 * Run `fn` while holding one of `slots` crawl slots of `host`, across every process on this database:
 * a PostgreSQL session advisory lock on (host, slot) held by a dedicated connection for the duration,
 * so a process that dies frees its slot with its connection. While every slot is taken the caller
 * waits its turn in this process; a slot this process frees passes straight to its next waiter (up to
 * {@link SLOT_HANDOFFS} in a row, waiting {@link SLOT_LINGER_MS} for one when none is queued), and
 * slots other processes hold are asked for again every `pollMs`.
 * @throws what `fn` throws; the database's error when the slot could not be asked for.
 */
export function withHostSlot<T>(db: Kysely<DB>, host: string, slots: number, fn: () => Promise<T>, pollMs = 200): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let state = hostSlots.get(host);
    if (!state) {
      state = { waiting: [], taken: new Set(), asking: 0, idle: [] };
      hostSlots.set(host, state);
    }
    const run = async (): Promise<void> => {
      if (failed.has(run)) return reject(failed.get(run));
      try {
        resolve(await fn());
      } catch (error) {
        reject(error);
      }
    };
    // A holder lingering with an empty queue takes the caller at once, without a statement.
    const idle = state.idle.shift();
    if (idle) return idle(run);
    state.waiting.push(run);
    askForSlots(db, host, state, slots, pollMs);
  });
}

/** The connector's view of a stored target. */
export function toCrawlTarget(row: CrawlTargetRow): CrawlTarget {
  return {
    id: row.id,
    providerId: row.provider_id,
    board: row.board,
    companyName: row.company_name ?? undefined,
    companyDomain: row.company_domain ?? undefined,
    companyLogo: row.company_logo ?? undefined,
    etag: row.etag ?? undefined,
    lastModified: row.last_modified ?? undefined,
    siteState: row.site_state ?? undefined,
  };
}

export interface CrawlRunRecord {
  targetId: string;
  startedAt: Date;
  finishedAt: Date;
  outcome: 'fetched' | 'not_modified' | 'failed';
  errorKind?: string;
  /** Operator-facing error text (never served to API clients). */
  error?: string;
  etag?: string;
  lastModified?: string;
  /** A multi-document connector's memory of the site after this crawl (career_site); kept as given. */
  siteState?: unknown;
  /** A fetched, non-empty board (or a 304 to one) counts as a good crawl for the not_seen rule. */
  goodCrawl: boolean;
  /**
   * The crawl lease holder whose lease the record gives back in the same statement, when it is the
   * crawl's last write (saves the release's round trip); a lease someone else holds stays.
   */
  releaseLeaseOf?: string;
  counts?: { postings?: number; created?: number; updated?: number; unchanged?: number; closed?: number; withdrawn?: number };
  /**
   * A good fetched crawl's board-level poster evidence (src/enrich/intermediary.ts BoardPosterEvidence),
   * or null when the board was not judged an intermediary's; undefined leaves the stored one as it is.
   */
  posterEvidence?: object | null;
}

/** The SET of a lease release by `owner` (nothing when unset): only `owner`'s lease is given back. */
function leaseRelease(owner: string | undefined) {
  if (owner === undefined) return {};
  return {
    lease_owner: sql<string | null>`CASE WHEN lease_owner = ${owner} THEN NULL ELSE lease_owner END`,
    lease_expires_at: sql<Date | null>`CASE WHEN lease_owner = ${owner} THEN NULL ELSE lease_expires_at END`,
  };
}

/**
 * Record a crawl's outcome on its target and in `crawl_runs`, in one statement (the target's update
 * as a data-modifying CTE of the run's insert: atomic without a transaction's extra round trips).
 */
export async function recordCrawlRun(db: Kysely<DB>, run: CrawlRunRecord): Promise<void> {
  await db
    .with('target', (qb) =>
      qb
        .updateTable('crawl_targets')
        .set((eb) => ({
          last_attempt_at: run.startedAt,
          ...(run.outcome === 'failed'
            ? { last_error: run.error ?? run.errorKind ?? 'failed', consecutive_failures: eb('consecutive_failures', '+', 1) }
            : {
                last_success_at: run.finishedAt,
                last_error: null,
                consecutive_failures: 0,
                // Validators of an empty answer are dropped: a later 304 must never stand for "still empty",
                // because the absence rule would read it as one more good crawl without every row.
                ...(run.outcome === 'fetched'
                  ? { etag: run.goodCrawl ? (run.etag ?? null) : null, last_modified: run.goodCrawl ? (run.lastModified ?? null) : null }
                  : {}),
                ...(run.goodCrawl ? { good_crawls: eb('good_crawls', '+', 1) } : {}),
                ...(run.goodCrawl && run.posterEvidence !== undefined ? { poster_evidence: run.posterEvidence === null ? null : JSON.stringify(run.posterEvidence) } : {}),
                // Like the validators: the memory of an empty answer is not kept, so a later all-304 crawl
                // never stands for "still empty" (the last good crawl's memory stays).
                ...(run.outcome === 'fetched' && run.goodCrawl && run.siteState !== undefined ? { site_state: JSON.stringify(run.siteState) } : {}),
              }),
          ...leaseRelease(run.releaseLeaseOf),
        }))
        .where('id', '=', run.targetId)
        .returning('id'),
    )
    .insertInto('crawl_runs')
    .values({
      target_id: run.targetId,
      started_at: run.startedAt,
      finished_at: run.finishedAt,
      outcome: run.outcome,
      error_kind: run.errorKind ?? null,
      postings: run.counts?.postings ?? 0,
      created: run.counts?.created ?? 0,
      updated: run.counts?.updated ?? 0,
      unchanged: run.counts?.unchanged ?? 0,
      closed: run.counts?.closed ?? 0,
      withdrawn: run.counts?.withdrawn ?? 0,
    })
    .execute();
}

/** A 304 crawl's record when it is written with the crawl's last ledger write ({@link notModifiedRecordCtes}). */
export interface NotModifiedRun {
  targetId: string;
  startedAt: Date;
  finishedAt: Date;
  /** As {@link CrawlRunRecord.releaseLeaseOf}: the lease holder whose lease the record gives back. */
  releaseLeaseOf?: string;
}

/**
 * Two data-modifying CTEs, `recorded_target` and `recorded_run`, that record a not-modified good crawl
 * exactly as {@link recordCrawlRun} does for `{ outcome: 'not_modified', goodCrawl: true, counts:
 * { unchanged } }`, only when `when` holds: for a statement that writes the record together with the
 * crawl's one ledger write (ledger.ts `applyUnchangedBoard`), one round trip instead of two. `unchanged`
 * and `when` are SQL expressions over the statement's other CTEs. The statement tells whether it
 * recorded with `EXISTS (SELECT 1 FROM recorded_run)`.
 */
export function notModifiedRecordCtes(run: NotModifiedRun, unchanged: RawBuilder<unknown>, when: RawBuilder<unknown>): RawBuilder<unknown> {
  const lease = leaseRelease(run.releaseLeaseOf);
  const release = 'lease_owner' in lease ? sql`, lease_owner = ${lease.lease_owner}, lease_expires_at = ${lease.lease_expires_at}` : sql``;
  return sql`recorded_target AS (
      UPDATE crawl_targets
         SET last_attempt_at = ${run.startedAt}, last_success_at = ${run.finishedAt}, last_error = NULL, consecutive_failures = 0, good_crawls = good_crawls + 1${release}
       WHERE id = ${run.targetId} AND ${when}
      RETURNING id
    ), recorded_run AS (
      INSERT INTO crawl_runs (target_id, started_at, finished_at, outcome, error_kind, postings, created, updated, unchanged, closed, withdrawn)
      SELECT id, ${run.startedAt}, ${run.finishedAt}, 'not_modified', NULL, 0, 0, 0, ${unchanged}, 0, 0 FROM recorded_target
      RETURNING 1
    )`;
}

/**
 * Forget the validators (ETag, Last-Modified) of these targets, so their next crawl asks for the full
 * board instead of a 304 and every posting goes through enrichment and the quality gate again (after
 * an enrichment upgrade: changed rows then emit `updated`).
 * @returns the number of targets changed.
 */
export async function clearValidators(db: Kysely<DB>, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db.updateTable('crawl_targets').set({ etag: null, last_modified: null, site_state: null }).where('id', 'in', ids).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The ingestion side of the service status: enabled targets, those failing, the last good crawl. */
export interface IngestionHealth {
  targets: number;
  /** Enabled targets whose last `failingAfter` or more crawls failed. */
  failing: number;
  /** Most recent successful crawl of any enabled target; null if none. */
  lastSuccessAt: Date | null;
}

/** Measure {@link IngestionHealth}; a target counts as failing after `failingAfter` failed crawls in a row. */
export async function ingestionHealth(db: Kysely<DB>, failingAfter: number): Promise<IngestionHealth> {
  const row = await db
    .selectFrom('crawl_targets')
    .select((eb) => [
      eb.fn.countAll<number>().as('targets'),
      eb.fn.count<number>('id').filterWhere('consecutive_failures', '>=', failingAfter).as('failing'),
      eb.fn.max('last_success_at').as('last_success_at'),
    ])
    .where('enabled', '=', true)
    .executeTakeFirstOrThrow();
  const last = row.last_success_at as Date | null;
  return { targets: Number(row.targets), failing: Number(row.failing), lastSuccessAt: last ? new Date(last) : null };
}
