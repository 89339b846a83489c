/**
 * The job status state machine (spec: States and transitions › Job status), as a pure decision over
 * what the ledger holds and what a successful crawl just saw. The ledger applies the decision and its
 * change event in one transaction.
 *
 * Decisions where the spec says "not shown" (documented in docs/lifecycle.md):
 * - A row that enters the ledger already closed (its source's close date has passed) or withheld emits
 *   no event: a sync client never saw it, so there is nothing to add or remove.
 * - A closed row that reappears at its source is reopened (live again, same id, `updated` event when
 *   served) unless the source itself still says it has expired (a close date in the past).
 * - A withheld row whose verdict clears returns as `updated` (spec: "can return later as updated").
 */
import type { ChangeKind, ClosedReason, WithheldKind } from './vocabulary.ts';
import type { QualityVerdict } from './quality.ts';

/** What the ledger holds for a posting before this crawl. */
export interface LedgerState {
  status: 'live' | 'closed';
  closedReason: ClosedReason | null;
  withheldKind: WithheldKind | null;
  /** Whether the row is in the default served set (live, not withheld, employer-posted). */
  served: boolean;
  contentHash: string;
}

/** What a successful crawl says about the posting now. */
export interface Sighting {
  contentHash: string;
  verdict: QualityVerdict;
  /** Posted by a staffing agency or job board (excluded from the default served set). */
  posterTyped: boolean;
  /** The source's own close date, if any. */
  upstreamClosesAt?: Date;
}

export type Transition =
  /** First sighting. `closedUpstream`: the source's close date has already passed. */
  | { kind: 'insert'; closedUpstream: boolean; withheldKind: WithheldKind | null; event: ChangeKind | null }
  /** Nothing served changed: only `last_verified_at` moves. */
  | { kind: 'verify' }
  /** Content or withholding changed on a row that stays (or becomes) live. */
  | { kind: 'update'; withheldKind: WithheldKind | null; reopen: boolean; event: ChangeKind | null }
  /** The source proves the vacancy dead: close with `expired_upstream`. */
  | { kind: 'close_expired'; event: ChangeKind | null }
  /** Closed and still expired at the source: content may be refreshed silently, status stays closed. */
  | { kind: 'stay_closed'; contentChanged: boolean };

function withheldKindOf(verdict: QualityVerdict): WithheldKind | null {
  return verdict.verdict === 'live' ? null : verdict.verdict;
}

/**
 * Decide the transition for one posting seen on a successful crawl at `now`.
 * Pure: no I/O, no clock other than `now`.
 */
export function decideTransition(existing: LedgerState | undefined, sighting: Sighting, now: Date): Transition {
  const expired = sighting.upstreamClosesAt !== undefined && sighting.upstreamClosesAt.getTime() <= now.getTime();
  const withheldKind = withheldKindOf(sighting.verdict);
  const servedNext = !expired && withheldKind === null && !sighting.posterTyped;

  if (!existing) {
    return { kind: 'insert', closedUpstream: expired, withheldKind, event: servedNext ? 'created' : null };
  }

  const contentChanged = existing.contentHash !== sighting.contentHash;

  if (existing.status === 'closed') {
    if (expired) return { kind: 'stay_closed', contentChanged };
    return { kind: 'update', withheldKind, reopen: true, event: servedNext ? 'updated' : null };
  }

  if (expired) return { kind: 'close_expired', event: existing.served ? 'delisted' : null };

  const withholdingChanged = existing.withheldKind !== withheldKind;
  let event: ChangeKind | null = null;
  if (existing.served && !servedNext) event = 'withdrawn';
  else if (servedNext && (!existing.served || contentChanged)) event = 'updated';

  if (!contentChanged && !withholdingChanged && existing.served === servedNext) return { kind: 'verify' };
  return { kind: 'update', withheldKind, reopen: false, event };
}

/**
 * When absence from a board becomes a closure (spec: "vacancy stops appearing at its source" →
 * `not_seen`; the spec leaves the thresholds "not shown"). Both conditions must hold.
 */
export interface AbsencePolicy {
  /** Consecutive good crawls of the row's board that did not list it (config `JOBLEDGER_NOT_SEEN_CRAWLS`). */
  crawls: number;
  /** Seconds since the row was last seen at its source (config `JOBLEDGER_NOT_SEEN_MIN_HOURS` × 3600). */
  minSeconds: number;
}

/** Defaults: three good crawls in a row without the posting, and a day since it was last seen. */
export const DEFAULT_ABSENCE_POLICY: AbsencePolicy = { crawls: 3, minSeconds: 24 * 3600 };

/**
 * Decide what one more good crawl without the posting means. `missedCrawls` counts this crawl
 * already; `lastSeenAt` is the row's last sighting (`last_verified_at`). Pure.
 * Only good crawls count: a failed crawl or an empty board never reaches this decision.
 */
export function decideAbsence(missedCrawls: number, lastSeenAt: Date, now: Date, policy: AbsencePolicy): 'keep' | 'close_not_seen' {
  const goneFor = (now.getTime() - lastSeenAt.getTime()) / 1000;
  return missedCrawls >= policy.crawls && goneFor >= policy.minSeconds ? 'close_not_seen' : 'keep';
}
