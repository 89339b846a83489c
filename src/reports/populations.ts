/**
 * The ledger's populations as every report counts them (spec: What the service does, item 10;
 * docs/architecture.md "Populations"). They partition the `jobs` table, so
 * `ledger_rows = live + withheld + closed` holds exactly:
 * - live: `status = 'live' AND withheld_kind IS NULL` — not delisted, not opted out, not withheld by the
 *   quality gate. It includes rows posted by a staffing agency or a job board, which /v1/jobs serves
 *   only with `include_poster_type`; `served` is the employer-direct part /v1/jobs serves by default.
 * - withheld: `status = 'live' AND withheld_kind IS NOT NULL`, by kind quality_removed, quality_gated,
 *   optout_hidden.
 * - closed: `status = 'closed'`.
 */
import { sql } from 'kysely';

/** SQL predicate of a live row, over the `jobs` table aliased `j`. */
export const LIVE = sql`(j.status = 'live' AND j.withheld_kind IS NULL)`;
/** SQL predicate of a withheld row. */
export const WITHHELD = sql`(j.status = 'live' AND j.withheld_kind IS NOT NULL)`;
/** SQL predicate of a closed row. */
export const CLOSED = sql`(j.status = 'closed')`;

/** Percentage of `part` in `whole`, one decimal; 0 when the whole is empty. */
export function pct(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
}

/** `YYYY-MM-DDTHH:MM:SS.sssZ` or null. */
export function isoOrNull(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return new Date(value).toISOString();
}
