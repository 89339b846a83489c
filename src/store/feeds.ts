/**
 * The read side of the sync surfaces (spec: GET /v1/changes, GET /v1/jobs/expired, GET /v1/jobs/closed).
 *
 * Both feeds read positions stamped by the commit-ordered feed clock (migration 004): an event's
 * `published_at`, a row's `closed_at`. A stamp is only ever handed out after every earlier stamp's
 * transaction has ended, so paging by (stamp, job id) can never step over a change that commits
 * later. Stamps are whole milliseconds and rendered exactly (`YYYY-MM-DDTHH:MM:SS.mmmZ`).
 *
 * The closure surfaces serve closed rows that were neither withheld nor posted by a staffing agency or
 * job board when they closed (`CLOSED_SERVED`, store/populations.ts).
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { CursorPosition } from '../domain/cursor.ts';
import type { ClosedFilter } from '../domain/closed-listing.ts';
import type { FeedPosition } from '../domain/feed-cursor.ts';
import type { JobFilter } from '../domain/listing-filter.ts';
import type { ChangeKind, ClosedReason } from '../domain/vocabulary.ts';
import { filterConditions, JOB_COLUMNS, type JobViewRow, type ListPage } from './job-queries.ts';
import { servedJobSql } from './job-lines.ts';
import { CLOSED_SERVED } from './populations.ts';
import type { DB } from './schema.ts';

/** A stamp column as exact RFC 3339 UTC text with milliseconds. */
function stampText(column: 'e.published_at' | 'j.closed_at') {
  return sql<string>`to_char(${sql.ref(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

const COLUMNS_WITHOUT_DESCRIPTION = JOB_COLUMNS.filter((c) => c !== 'j.description_html');

/** One item of the change feed. */
export interface ChangeFeedRow {
  change: ChangeKind;
  jobId: string;
  /** The event's feed stamp, RFC 3339 UTC with milliseconds. */
  changedAt: string;
  /**
   * The row as it is now, for `created` and `updated` (then it is served), as the served Job's JSON
   * text in the contract's key order (store/job-lines.ts jobObjectSql); absent otherwise.
   */
  jobJson?: string;
}

/**
 * The next `limit` changes after `after`, in (stamp, job id) order. A job's change is left out when a
 * later change of the same job exists (it is folded into that one, which is after `after` too and is
 * delivered in its place), so each item's row is the job's current state and a `created`/`updated`
 * item always carries a row that is served now.
 *
 * With `countryLock` (spec: Authentication item 9) the feed is the one of that country's rows: the
 * events whose row was in the country after the change (`country`) or before it (`previous_country`,
 * migration 008), folded among themselves. A `created`/`updated` item whose row is not in the country
 * now (it moved away) is delivered as `withdrawn`, without the row: the client must stop serving it,
 * and the row itself belongs to another country. Each locked page reads two ordered index ranges
 * (`change_events_country_feed_idx`, `change_events_previous_country_feed_idx`), merged.
 */
export async function readChanges(
  db: Kysely<DB>,
  after: FeedPosition,
  limit: number,
  options: { includeDescription?: boolean; countryLock?: string } = {},
): Promise<ChangeFeedRow[]> {
  const lock = options.countryLock;
  // The events of the page: (stamp, job id, kind), in feed order.
  const events = (column: 'e.country' | 'e.previous_country' | null) => {
    let query = db
      .selectFrom('change_events as e')
      .select(['e.published_at', 'e.job_id', 'e.change'])
      .where((eb) => eb(eb.refTuple('e.published_at', 'e.job_id'), '>', eb.tuple(sql<Date>`${after.at}::timestamptz`, sql<string>`${after.id}::uuid`)))
      // Implied by the row comparison; stated so the planner estimates the range from the stamp's
      // histogram (a row comparison gets a fixed guess) and walks the country's index range.
      .where('e.published_at', '>=', sql<Date>`${after.at}::timestamptz`);
    if (lock) {
      // A locked feed folds only into later events of its own country, which `superseded` does not say.
      query = query.where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('change_events as later')
              .select(sql<number>`1`.as('one'))
              .whereRef('later.job_id', '=', 'e.job_id')
              .whereRef('later.published_at', '>', 'e.published_at')
              .where((eb) => eb.or([eb('later.country', '=', lock), eb('later.previous_country', '=', lock)])),
          ),
        ),
      );
      if (column) query = query.where(column, '=', lock);
    } else {
      // Kept by a trigger (migration 035) and read through change_events_current_feed_idx.
      query = query.where('e.superseded', '=', false);
    }
    return query.orderBy('e.published_at').orderBy('e.job_id').limit(limit);
  };
  // previous_country is kept only when it differs from country, so the two branches never share an event.
  const page = lock ? sql<EventKey>`((${events('e.country')}) UNION ALL (${events('e.previous_country')}))` : sql<EventKey>`(${events(null)})`;
  const rows = await db
    .selectFrom(page.as('e'))
    .innerJoin('jobs as j', 'j.id', 'e.job_id')
    // The stored line already holds the company's fields; only the per-read expression reads its row.
    .$if(options.includeDescription === true, (qb) => qb.innerJoin('companies as c', 'c.id', 'j.company_id'))
    .select(['e.change', 'e.job_id', stampText('e.published_at').as('changed_at'), 'j.country'])
    // Built by PostgreSQL (issue 22): a 5,000-item page was mostly Node.js decoding, presenting and
    // serializing its rows. Without descriptions it is the row's stored line (migration 033), which
    // PostgreSQL no longer assembles per read either.
    .select(sql.raw<string>(servedJobSql(options.includeDescription === true)).as('job_json'))
    .orderBy('e.published_at')
    .orderBy('e.job_id')
    .limit(limit)
    .execute();
  return rows.map((row) => {
    const upsert = row.change === 'created' || row.change === 'updated';
    // Moved out of the locked country: the client drops it; it never sees another country's row.
    if (upsert && lock && row.country !== lock) return { change: 'withdrawn', jobId: row.job_id, changedAt: row.changed_at };
    const item: ChangeFeedRow = { change: row.change, jobId: row.job_id, changedAt: row.changed_at };
    if (upsert) item.jobJson = row.job_json;
    return item;
  });
}

/** The key and kind of one event, as the page subquery returns them. */
interface EventKey {
  published_at: Date;
  job_id: string;
  change: ChangeKind;
}

/** One item of the closure feed. */
export interface ExpiredFeedRow {
  id: string;
  /** RFC 3339 UTC with milliseconds: the closure's feed stamp. */
  closedAt: string;
  closedReason: ClosedReason;
}

/**
 * The next `limit` closed rows after `after`, in (closed_at, id) order; each row once. With
 * `countryLock`, only closed rows in that country (a row that moved away before it closed was already
 * announced to that country's clients as `withdrawn` by the change feed).
 */
export async function readExpired(db: Kysely<DB>, after: FeedPosition, limit: number, options: { countryLock?: string } = {}): Promise<ExpiredFeedRow[]> {
  let query = db.selectFrom('jobs as j');
  if (options.countryLock) query = query.where('j.country', '=', options.countryLock);
  const rows = await query
    .select(['j.id', stampText('j.closed_at').as('closed_at'), 'j.closed_reason'])
    .where(CLOSED_SERVED)
    .where((eb) => eb(eb.refTuple('j.closed_at', 'j.id'), '>', eb.tuple(sql<Date>`${after.at}::timestamptz`, sql<string>`${after.id}::uuid`)))
    .orderBy('j.closed_at')
    .orderBy('j.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, closedAt: r.closed_at, closedReason: r.closed_reason! }));
}

/**
 * One page of closed rows, most recently closed first (`closed_at DESC, id DESC`), after `after` when
 * given, under the shared filters and the closure filters. The cursor key is `closed_at` as exact text.
 */
export async function listClosedJobs(
  db: Kysely<DB>,
  filter: JobFilter,
  closed: ClosedFilter,
  page: { limit: number; after?: CursorPosition; includeDescription: boolean },
): Promise<ListPage> {
  let query = db
    .selectFrom('jobs as j')
    .innerJoin('companies as c', 'c.id', 'j.company_id')
    .select(page.includeDescription ? JOB_COLUMNS : COLUMNS_WITHOUT_DESCRIPTION)
    .select(['c.slug as company_slug', 'c.logo_url as company_logo', 'c.domain as company_domain', sql<string>`j.sort_key::text`.as('sort_key_text'), stampText('j.closed_at').as('closed_at_text')])
    .where(CLOSED_SERVED)
    .where((eb) => {
      const where: Expression<SqlBool>[] = filterConditions(eb, filter);
      if (closed.closedAfter) where.push(eb('j.closed_at', '>=', closed.closedAfter));
      if (closed.closedBefore) where.push(eb('j.closed_at', '<', closed.closedBefore));
      if (closed.closedReason) where.push(eb('j.closed_reason', 'in', closed.closedReason));
      return eb.and(where);
    });
  if (page.after) {
    const after = page.after;
    query = query.where((eb) => eb(eb.refTuple('j.closed_at', 'j.id'), '<', eb.tuple(sql<Date>`${after.key}::timestamptz`, sql<string>`${after.id}::uuid`)));
  }
  const rows = (await query
    .orderBy('j.closed_at', 'desc')
    .orderBy('j.id', 'desc')
    .limit(page.limit + 1)
    .execute()) as unknown as Array<JobViewRow & { closed_at_text: string }>;
  const hasMore = rows.length > page.limit;
  const pageRows = (hasMore ? rows.slice(0, page.limit) : rows).map((r) => ({ ...r, description_html: r.description_html ?? null }));
  const last = pageRows[pageRows.length - 1];
  return { rows: pageRows, hasMore, next: hasMore && last ? { key: last.closed_at_text, id: last.id } : undefined };
}

/**
 * The change feed's watermark: the highest `seq` of `change_events` as a decimal string ('0' when
 * there is none). One lookup on the unique index of `seq`; it grows with every recorded change.
 */
export async function changeWatermark(db: Kysely<DB>): Promise<string> {
  const row = await db.selectFrom('change_events').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
  return row?.seq == null ? '0' : String(row.seq);
}
