/**
 * Category family from the job title (spec: Resources › Job.category "Always inferred from the
 * title", category_confidence "Null, or >= 0.6. Below 0.6 no category is published";
 * /work/shared/design/category-families.md for what each family holds).
 *
 * A first, honest rule set (the rules are in category-rules.ts). How a title is scored:
 * 1. The title is folded (lower case, accents and gender markers removed) and cut into segments at
 *    `,` `(` `)` `|` `;` `:` and spaced dashes. English titles name the job first and qualify it
 *    after ("Software Engineer, Security", "Store Manager - Edmonton"), so the first segment that
 *    matches any role or topic rule decides; matches in later segments only compete.
 * 2. Every rule match is found; a match inside a longer match is dropped ("data engineer" beats
 *    "engineer").
 * 3. Role rules decide if any matched, else topic rules, else weak rules, each in the first segment
 *    where that kind matched. The best family's score is its strongest rule weight (+0.03 for each further rule of the same
 *    family, up to +0.06), minus half the score of the best other family at the same level, minus a
 *    small penalty for the strongest other-family word elsewhere in the title (0.15 × its weight in
 *    the same segment, 0.2 × elsewhere).
 * 4. Department and team are a weak tie-breaker only: a family they name gets +0.1 when the title
 *    already gave it a score. They never create a category the title does not support.
 * 5. The rule score is not yet a probability. A title scoring below 0.6 is not published; otherwise the
 *    score is mapped to the share of right answers measured for its score band and deciding rule kind
 *    on the development part of the labelled titles ({@link CALIBRATION}, fitted by
 *    scripts/calibrate-category.ts), and
 *    that calibrated confidence is published when it is at least {@link PUBLISH_AT}: the spec's 0.6,
 *    or higher where the development part shows that lower confidences cost the precision target;
 *    otherwise `{ confidence: null }`.
 *
 * Measured on real titles by `npm run eval:enrich` (scripts/eval-enrich.ts, results in
 * docs/enrichment-quality.md): precision and coverage against the OPM-series gold families of the
 * USAJOBS announcements and against hand labels on Ashby and NAV titles.
 */
import { CATEGORY_CONFIDENCE_THRESHOLD, type CategoryFamily } from '../domain/vocabulary.ts';
import { CALIBRATION_TABLE, FAMILY_SHARES, PUBLISH_FROM } from './category-calibration.ts';
import { CATEGORY_RULES, ROLE_NOUN, UNINFORMATIVE_HINTS, type RuleKind } from './category-rules.ts';

/** The classifier's answer: both fields set, or `{ confidence: null }` when below the threshold. */
export interface CategoryResult {
  category?: CategoryFamily;
  /** In [0.6, 1] when `category` is set; null exactly when it is not. */
  confidence: number | null;
}

interface CompiledRule {
  family: CategoryFamily;
  kind: RuleKind;
  weight: number;
  re: RegExp;
}

interface Match {
  family: CategoryFamily;
  kind: RuleKind;
  weight: number;
  start: number;
  end: number;
  segment: number;
}

/** Compiled once at module load; classifyCategory only runs them. */
const RULES: readonly CompiledRule[] = CATEGORY_RULES.map(([family, kind, weight, pattern]) => ({
  family,
  kind,
  weight,
  re: new RegExp(`(?<![a-z0-9])(?:${pattern.replaceAll('{N}', ROLE_NOUN)})(?![a-z0-9])`, 'g'),
}));

const SEPARATOR = /[,()[\]|;:]|\s[-–—]+\s|\s[-–—]+(?=\S)|(?<=\S)[-–—]+\s|\s@\s/g;

/** Lower case, accents stripped, letters NFKD leaves alone mapped, gender markers removed. */
function fold(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ø/g, 'o')
    .replace(/æ/g, 'ae')
    .replace(/ß/g, 'ss')
    .replace(/œ/g, 'oe')
    .replace(/ł/g, 'l')
    .replace(/đ/g, 'd')
    .replace(/[’‘`´]/g, "'")
    .replace(/\((?:[a-z]\s*\/\s*){1,3}[a-z]\)|\(all genders\)|\b[mwfdh]\/[mwfdh](?:\/[mwfdhx])?\b/g, ' ')
    .replace(/[:*_/]in(?:nen)?\b/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function findMatches(text: string): Match[] {
  const separators: number[] = [];
  for (const m of text.matchAll(SEPARATOR)) separators.push(m.index);
  const segmentOf = (pos: number): number => separators.filter((s) => s < pos).length;
  const found: Match[] = [];
  for (const rule of RULES) {
    // Restart one character after each match start, so overlapping phrases ("customer support" and
    // "support engineer") are both found; containment below then keeps the informative ones.
    rule.re.lastIndex = 0;
    for (let m = rule.re.exec(text); m !== null; m = rule.re.exec(text)) {
      if (m[0].length > 0) {
        found.push({ family: rule.family, kind: rule.kind, weight: rule.weight, start: m.index, end: m.index + m[0].length, segment: segmentOf(m.index) });
      }
      rule.re.lastIndex = m.index + 1;
    }
  }
  // A match inside a longer one (or the weaker of two on the same span) is not a separate signal.
  return found.filter(
    (a) =>
      !found.some(
        (b) =>
          b !== a &&
          b.start <= a.start &&
          b.end >= a.end &&
          (b.end - b.start > a.end - a.start || (b.end - b.start === a.end - a.start && (b.weight > a.weight || (b.weight === a.weight && found.indexOf(b) < found.indexOf(a))))),
      ),
  );
}

/** Per family: strongest weight plus a small bonus for further distinct rules of that family. */
function familyScores(matches: Match[], bonus: Map<CategoryFamily, number>): Map<CategoryFamily, number> {
  const byFamily = new Map<CategoryFamily, number[]>();
  for (const m of matches) byFamily.set(m.family, [...(byFamily.get(m.family) ?? []), m.weight]);
  const scores = new Map<CategoryFamily, number>();
  for (const [family, weights] of byFamily) {
    const sorted = weights.sort((x, y) => y - x);
    const extra = Math.min(0.06, 0.03 * (sorted.length - 1));
    scores.set(family, Math.min(0.99, (sorted[0] ?? 0) + extra + (bonus.get(family) ?? 0)));
  }
  return scores;
}

function bestTwo(scores: Map<CategoryFamily, number>): { family?: CategoryFamily; best: number; second: number } {
  let family: CategoryFamily | undefined;
  let best = 0;
  let second = 0;
  for (const [f, s] of scores) {
    if (s > best) {
      second = best;
      best = s;
      family = f;
    } else if (s > second) {
      second = s;
    }
  }
  return { family, best, second };
}

/** Department and team names repeat across a board; their families are remembered (bounded). */
const hintCache = new Map<string, CategoryFamily | null>();
const HINT_CACHE_LIMIT = 5000;

/** The family a department or team name points to, if any (title rules, no hints). */
function hintFamily(hint: string | undefined): CategoryFamily | undefined {
  const text = hint ? fold(hint) : '';
  if (!text || UNINFORMATIVE_HINTS.has(text)) return undefined;
  const cached = hintCache.get(text);
  if (cached !== undefined) return cached ?? undefined;
  const scored = score(text, new Map());
  // Only a department name that would itself be classified counts ("Growth" does not).
  const family = scored.family !== undefined && scored.confidence >= CATEGORY_CONFIDENCE_THRESHOLD ? scored.family : undefined;
  if (hintCache.size >= HINT_CACHE_LIMIT) hintCache.clear();
  hintCache.set(text, family ?? null);
  return family;
}

function score(text: string, bonus: Map<CategoryFamily, number>): { family?: CategoryFamily; confidence: number; kind?: RuleKind } {
  const matches = findMatches(text);
  if (matches.length === 0) return { confidence: 0 };
  // Roles decide over topics wherever they are ("Fuse Finance - Backend Engineer" names a company
  // first), topics over weak rules; within the deciding kind, the first segment that has one.
  const kind: RuleKind = matches.some((m) => m.kind === 'role') ? 'role' : matches.some((m) => m.kind === 'topic') ? 'topic' : 'weak';
  const deciding = matches.filter((m) => m.kind === kind);
  const primary = Math.min(...deciding.map((m) => m.segment));
  const level = deciding.filter((m) => m.segment === primary);
  const { family, best, second } = bestTwo(familyScores(level, bonus));
  if (!family) return { confidence: 0 };
  let confidence = best - 0.5 * second;
  // Other-family words beside the deciding role, and anything in later segments, cast some doubt.
  let doubt = 0;
  for (const m of matches) {
    if (m.family === family || level.includes(m)) continue;
    if (m.kind === 'weak') continue;
    doubt = Math.max(doubt, (m.segment === primary ? 0.15 : 0.2) * m.weight);
  }
  confidence -= doubt;
  if (matches.some((m) => m.family === family && !level.includes(m))) confidence += 0.03;
  return { family, confidence: Math.max(0, Math.min(0.99, confidence)), kind };
}

/**
 * Classify a job title into one of the 24 stored category families.
 *
 * @param title the title as the source gave it (any language; German, French, Dutch, Spanish,
 *              Norwegian and Swedish job words are covered).
 * @param hints department and team names from the source, a weak tie-breaker only.
 * @returns `{ category, confidence }` with the calibrated confidence (two decimals, >= 0.6) when the
 *          title is classified with at least {@link PUBLISH_AT}; otherwise `{ confidence: null }`.
 */
export function classifyCategory(title: string, hints?: { department?: string; team?: string }): CategoryResult {
  const raw = rawCategoryScore(title, hints);
  if (raw.family === undefined) return { confidence: null };
  const confidence = calibratedConfidence(raw.score, raw.kind ?? 'role', raw.family);
  if (confidence < PUBLISH_AT) return { confidence: null };
  return { category: raw.family, confidence };
}

/**
 * The rule score before calibration: the best family and its uncalibrated score in [0, 0.99]. Used by
 * classifyCategory and by scripts/calibrate-category.ts, which fits {@link CALIBRATION}.
 */
export function rawCategoryScore(title: string, hints?: { department?: string; team?: string }): { family?: CategoryFamily; score: number; kind?: RuleKind } {
  const text = fold(title);
  if (!text) return { score: 0 };
  const bonus = new Map<CategoryFamily, number>();
  for (const f of new Set([hintFamily(hints?.department), hintFamily(hints?.team)])) {
    if (f) bonus.set(f, 0.1);
  }
  let result = score(text, new Map());
  if (bonus.size > 0 && result.family !== undefined) {
    // The bonus only counts for families the title itself already scored.
    const withHints = score(text, bonus);
    if (withHints.family !== undefined) result = withHints;
  }
  return result.family === undefined ? { score: 0 } : { family: result.family, score: result.confidence, kind: result.kind };
}

/**
 * Rule score → probability that the published family is right, fitted **per deciding rule kind** on
 * the development part of the labelled titles (USAJOBS titles with OPM-series gold families and
 * hand-labelled Ashby titles; `node scripts/calibrate-category.ts` prints the table;
 * eval/labels/README.md). A title decided by a role noun ("Budget Analyst") and one decided only by a
 * topic word ("Chief Education Branch") are right at very different rates at the same rule score
 * (issue #15 class 4: topic-only answers were the bulk of the wrong ones), so each kind has its own
 * table: `[lowest rule score of the band, share of right answers in that band]`, made monotone by
 * pooling adjacent bands (isotonic regression). A title scoring below its kind's first band, or whose
 * band is right less than 60% of the time, is not published.
 */
export const CALIBRATION: Readonly<Record<RuleKind, readonly (readonly [number, number])[]>> = CALIBRATION_TABLE;

/**
 * The least calibrated confidence that is published: the spec's floor (CATEGORY_CONFIDENCE_THRESHOLD,
 * 0.6) or the operating point fitted on the development part (PUBLISH_FROM), whichever is higher.
 * scripts/calibrate-category.ts picks PUBLISH_FROM as the lowest confidence at which the development
 * part's precision, counting every answer at or above it, has the lower end of its 95% Wilson interval at
 * or above issue #15's precision target (95%): a precision measured at 95.2% on 5,900 answers
 * could be 94.6%, which is not the target met.
 */
export const PUBLISH_AT = Math.max(CATEGORY_CONFIDENCE_THRESHOLD, PUBLISH_FROM);

/**
 * Calibrated confidence, two decimals, for a rule score decided by a rule of `kind` for `family`:
 * topic- and weak-decided answers take their family's measured share on the development part, or
 * the share of the other families together where the family had too few answers
 * ({@link FAMILY_SHARES}), once the score clears the kind's first band; not published when the lower
 * end of that share's 95% interval is below the threshold (a small sample's 0.60 is not a 0.60).
 * `fitted` defaults to the committed tables; scripts/calibrate-category.ts passes the ones it has just fit.
 */
export function calibratedConfidence(
  score: number,
  kind: RuleKind,
  family: CategoryFamily,
  fitted: { table: typeof CALIBRATION; shares: typeof FAMILY_SHARES } = { table: CALIBRATION, shares: FAMILY_SHARES },
): number {
  let confidence = 0;
  for (const [from, p] of fitted.table[kind]) if (score >= from) confidence = p;
  const measured = fitted.shares[`${kind}:${family}`] ?? fitted.shares[`${kind}:other`];
  // A share that clears the threshold only within its sampling error is not enough to publish.
  if (kind !== 'role' && confidence > 0 && measured !== undefined) confidence = measured[1] >= CATEGORY_CONFIDENCE_THRESHOLD ? measured[0] : 0;
  return Math.round(confidence * 100) / 100;
}
