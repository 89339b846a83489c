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
