/**
 * The ledger's populations, as every query that counts or serves them spells them (spec: What the
 * service does, items 4 and 10; docs/architecture.md "Poster type and the populations"). SQL
 * predicates over the `jobs` table aliased `j`, used by the store's read side and by the reports.
 *
 * Live, withheld and closed partition the `jobs` table, so `ledger_rows = live + withheld + closed`
 * holds exactly:
 * - live: `status = 'live' AND withheld_kind IS NULL` — not delisted, not opted out, not withheld by the
 *   quality gate. It includes rows posted by a staffing agency or a job board, which /v1/jobs serves
 *   only with `include_poster_type`; the generated column `served` (migration 001) is the
 *   employer-direct part /v1/jobs serves by default.
 * - withheld: `status = 'live' AND withheld_kind IS NOT NULL`, by kind quality_removed, quality_gated,
 *   optout_hidden.
 * - closed: `status = 'closed'`.
 *
 * The closure surfaces (/v1/jobs/expired, /v1/jobs/closed, `include_closed`, the export's
 * `status=closed`) serve {@link CLOSED_SERVED}: closed rows that were neither withheld nor posted by
 * a staffing agency or job board when they closed. A row a client was never served is not a closure
 * it needs to hear about.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** A live row. */
export const LIVE: RawBuilder<SqlBool> = sql<SqlBool>`(j.status = 'live' AND j.withheld_kind IS NULL)`;
/** A withheld row. */
export const WITHHELD: RawBuilder<SqlBool> = sql<SqlBool>`(j.status = 'live' AND j.withheld_kind IS NOT NULL)`;
/** A closed row. */
export const CLOSED: RawBuilder<SqlBool> = sql<SqlBool>`(j.status = 'closed')`;
/** A closed row the closure surfaces serve: employer-posted and not withheld. */
export const CLOSED_SERVED: RawBuilder<SqlBool> = sql<SqlBool>`(j.status = 'closed' AND j.withheld_kind IS NULL AND j.poster_type IS NULL)`;
