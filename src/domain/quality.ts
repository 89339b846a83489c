/**
 * The quality gate's verdict on one posting (spec: What the service does, items 2 and 10).
 * `live` rows are served; the other verdicts withhold the row with that withholding kind.
 */
import type { WithheldKind } from './vocabulary.ts';

export type QualityVerdictKind = 'live' | WithheldKind;

export interface QualityVerdict {
  verdict: QualityVerdictKind;
  /** Stable id of the rule that decided (e.g. `apply_url.missing`); undefined for a clean pass. */
  ruleId?: string;
  /** The host the rule matched, when a URL decided it. */
  matchedHost?: string;
}

/**
 * Stable rule ids of the quality gate (src/ingest/quality-gate.ts), served with `quality=all` and kept
 * in the ledger. Listed here so the store and the gate name them the same way.
 */
export const QUALITY_RULE_IDS = [
  'source.not_redistributable',
  'employer.opted_out',
  // The same vacancy has a row from a provider that supersedes this one (connector descriptor `supersedes`).
  'source.superseded',
  'apply_url.missing',
  'apply_url.job_board',
  'apply_url.other_board',
  'apply_url.not_employer',
  'posted_at.future',
  // An operator rejected a direct submission (`jobledger submissions reject`, src/ingest/submissions.ts).
  'submission.rejected',
] as const;
export type QualityRuleId = (typeof QUALITY_RULE_IDS)[number];

/** The rule that removes a copy of a vacancy another provider serves (withheld kind quality_removed). */
export const SUPERSEDED_RULE_ID: QualityRuleId = 'source.superseded';

/** The rule that hides every row of an employer with a verified opt-out (withheld kind optout_hidden). */
export const OPTOUT_RULE_ID: QualityRuleId = 'employer.opted_out';
