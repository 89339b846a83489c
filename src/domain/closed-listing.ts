/**
 * The closure window of GET /v1/jobs/closed beyond the shared listing filters (spec: "closed_after,
 * closed_before, closed_reason (enum expired_upstream, not_seen)"; the accepted formats of
 * closed_after and closed_before are "not shown"). The query is parsed by `src/http/schemas/sync.ts`.
 *
 * Decisions (docs/sync.md): `closed_after` and `closed_before` bound a half-open window,
 * `closed_after <= closed_at < closed_before`, so consecutive windows never overlap or leave a gap.
 */
import type { ClosedReason } from './vocabulary.ts';

export interface ClosedFilter {
  /** Inclusive lower bound on `closed_at`. */
  closedAfter?: Date;
  /** Exclusive upper bound on `closed_at`. */
  closedBefore?: Date;
  closedReason?: ClosedReason[];
}
