/**
 * The parameters of GET /v1/jobs/closed beyond the shared listing filters (spec: "closed_after,
 * closed_before, closed_reason (enum expired_upstream, not_seen)"; the accepted formats of
 * closed_after and closed_before are "not shown").
 *
 * Decisions (docs/sync.md):
 * - `closed_after` and `closed_before` accept what `posted_after` accepts: a date (`2026-11-01`,
 *   midnight UTC) or an RFC 3339 timestamp with offset. They bound a half-open window:
 *   `closed_after <= closed_at < closed_before`, so consecutive windows never overlap or leave a gap.
 *   Unparseable: 422 `bad_timestamp`.
 * - `closed_reason` is a comma list like every vocabulary filter, any case. Unknown: 422
 *   `bad_closed_reason` naming the value.
 */
import { ApiError } from './errors.ts';
import { commaList, parseInstant, type RawQuery } from './listing-filter.ts';
import { CLOSED_REASONS, type ClosedReason } from './vocabulary.ts';

export interface ClosedFilter {
  /** Inclusive lower bound on `closed_at`. */
  closedAfter?: Date;
  /** Exclusive upper bound on `closed_at`. */
  closedBefore?: Date;
  closedReason?: ClosedReason[];
}

/**
 * Parse the closure parameters.
 * @throws ApiError 422 `bad_timestamp` or `bad_closed_reason`.
 */
export function parseClosedQuery(query: RawQuery): ClosedFilter {
  const filter: ClosedFilter = {};
  const after = parseInstant('closed_after', query.closed_after);
  if (after) filter.closedAfter = after;
  const before = parseInstant('closed_before', query.closed_before);
  if (before) filter.closedBefore = before;
  const reasons = commaList(query.closed_reason);
  if (reasons) {
    filter.closedReason = reasons.map((value) => {
      const hit = CLOSED_REASONS.find((r) => r === value.toLowerCase());
      if (!hit) throw new ApiError('bad_closed_reason', `The value "${value}" is not a closed_reason; the legal values are ${CLOSED_REASONS.join(', ')}.`);
      return hit;
    });
  }
  return filter;
}
