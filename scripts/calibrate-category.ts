/**
 * Fit the calibration of the category classifier (src/enrich/category-calibration.ts) on the
 * development part of the labelled titles only: USAJOBS titles whose OPM series gives a gold family
 * (split by title) and the hand-labelled Ashby/NAV titles (split by board), with the same fixed hash
 * split as `npm run eval:enrich`.
 *
 * Usage: node scripts/calibrate-category.ts [--data <dir>] [--write]
 * Method: per deciding rule kind (role, topic, weak), rule scores from 0.60 (lower ones are never published) are cut into bands 0.05 wide
 * (at least 20 answers each); each band's share of right answers
 * (an answer on a title with no gold family counts as wrong) is pooled with its neighbours until the
 * shares rise monotonically (pool-adjacent-violators). Topic- and weak-decided answers also get a share per
 * family, with the lower end of its 95% Wilson interval (published only when that clears 0.6).
 * Last, the operating point: the lowest calibrated confidence from which on the development part's
 * precision has the lower end of its 95% Wilson interval at or above 95% (PUBLISH_FROM).
 * `--write` rewrites category-calibration.ts with the table.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTarGzip } from 'nanotar';
import { calibratedConfidence, rawCategoryScore } from '../src/enrich/category.ts';
import { CATEGORY_CONFIDENCE_THRESHOLD, type CategoryFamily } from '../src/domain/vocabulary.ts';
import type { RuleKind } from '../src/enrich/category-rules.ts';
import { wilsonInterval } from './eval/context.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const dataDir = resolve(args.includes('--data') ? args[args.indexOf('--data') + 1]! : (process.env.JOBLEDGER_EVAL_DATA ?? '/work/shared/data'));
const opm = JSON.parse(readFileSync(process.env.JOBLEDGER_EVAL_OPM ?? join(dataDir, '..', 'design', 'opm-series-families.json'), 'utf8')) as { series: Record<string, string>; series_2210_title_overrides: Record<string, string> };
const isDev = (key: string): boolean => (createHash('sha256').update(`split:${key}`).digest()[0]! & 1) === 0;

const samples: { score: number; kind: RuleKind; family: string; right: boolean }[] = [];
for (const file of await parseTarGzip(readFileSync(join(dataDir, 'usajobs/announcements.tar.gz')))) {
  if (!file.name.endsWith('.json') || !file.data) continue;
  for (const row of JSON.parse(new TextDecoder().decode(file.data)) as { position_title: string; occupation_series?: string[] }[]) {
    if (!isDev(`usajobs:${row.position_title.toLowerCase().replace(/\s+/g, ' ').trim()}`)) continue;
    const families = new Set<string>();
    for (const s of row.occupation_series ?? []) {
      const code = s.split(' - ')[0]?.trim() ?? '';
      let family = opm.series[code];
      if (code === '2210') for (const [m, f] of Object.entries(opm.series_2210_title_overrides)) if (row.position_title.toUpperCase().includes(m.toUpperCase())) family = f;
      if (family) families.add(family);
    }
    if (families.size !== 1) continue;
    const r = rawCategoryScore(row.position_title);
    if (r.family) samples.push({ score: r.score, kind: r.kind ?? 'role', family: r.family, right: r.family === [...families][0] });
  }
}
for (const line of readFileSync(join(ROOT, 'eval/labels/titles.jsonl'), 'utf8').split('\n').filter(Boolean)) {
  const l = JSON.parse(line) as { source: string; board?: string; title: string; family: string | null };
  if (!isDev(l.source === 'ashby' ? `ashby:${l.board}` : `${l.source}:${l.title}`)) continue;
  const r = rawCategoryScore(l.title);
  if (r.family) samples.push({ score: r.score, kind: r.kind ?? 'role', family: r.family, right: r.family === l.family });
}

// Per deciding rule kind, bands 0.05 wide from 0.6 (a rule score below the publishing threshold is
// never published, whatever its band would say); a band needs MIN_BAND answers, else it joins the one below.
const EDGES = [0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.01];
const MIN_BAND = 20;
const tables: Record<RuleKind, (readonly [number, number])[]> = { role: [], topic: [], weak: [] };
console.log(`dev answers: ${samples.length}`);
for (const kind of ['role', 'topic', 'weak'] as const) {
  const ofKind = samples.filter((x) => x.kind === kind);
  const bands: { from: number; n: number; right: number }[] = [];
  EDGES.slice(0, -1).forEach((from, k) => {
    const inBand = ofKind.filter((x) => x.score >= from && x.score < EDGES[k + 1]!);
    const last = bands[bands.length - 1];
    if (last && last.n < MIN_BAND) {
      last.n += inBand.length;
      last.right += inBand.filter((x) => x.right).length;
    } else bands.push({ from, n: inBand.length, right: inBand.filter((x) => x.right).length });
  });
  // Pool adjacent violators so the probability never falls as the score rises.
  const pooled: { from: number; n: number; right: number }[] = [];
  for (const b of bands.filter((x) => x.n > 0)) {
    pooled.push({ ...b });
    while (pooled.length > 1 && pooled[pooled.length - 2]!.right / pooled[pooled.length - 2]!.n > pooled[pooled.length - 1]!.right / pooled[pooled.length - 1]!.n) {
      const top = pooled.pop()!;
      const prev = pooled[pooled.length - 1]!;
      prev.n += top.n;
      prev.right += top.right;
    }
  }
  tables[kind] = pooled.map((b) => [b.from, Math.min(0.99, Math.round((b.right / b.n) * 100) / 100)] as const);
  for (const b of pooled) console.log(`${kind} score >= ${b.from.toFixed(2)}: ${b.n} answers, ${((100 * b.right) / b.n).toFixed(1)}% right`);
}
// Topic and weak answers: one share per family where the family has MIN_BAND answers of that kind
// (a topic word is a much better guess for some families than for others: "operations" vs "education").
/**
 * Lower end of the 95% Wilson score interval of `right` out of `n`: a family whose share clears the
 * publishing threshold only by the luck of a small sample (15 right of 25 is 0.60, but could well be
 * 0.45) is not published.
 */
const wilsonLower = (right: number, n: number): number => wilsonInterval(right, n)[0];
const share = (e: { n: number; right: number }): readonly [number, number] => [Math.min(0.99, Math.round((e.right / e.n) * 100) / 100), Math.round(wilsonLower(e.right, e.n) * 100) / 100];
const familyShares: Record<string, readonly [number, number]> = {};
for (const kind of ['topic', 'weak'] as const) {
  const byFamily = new Map<string, { n: number; right: number }>();
  for (const x of samples.filter((y) => y.kind === kind && y.score >= 0.6)) {
    const e = byFamily.get(x.family) ?? { n: 0, right: 0 };
    e.n++;
    if (x.right) e.right++;
    byFamily.set(x.family, e);
  }
  // Families with fewer answers share one figure, fitted on their own answers only (not on the
  // kind's whole pool, which the well-measured families dominate).
  const rest = { n: 0, right: 0 };
  for (const [family, e] of [...byFamily].sort()) {
    if (e.n < MIN_BAND) {
      rest.n += e.n;
      rest.right += e.right;
      continue;
    }
    familyShares[`${kind}:${family}`] = share(e);
    console.log(`${kind} ${family}: ${e.n} answers, ${((100 * e.right) / e.n).toFixed(1)}% right (95% lower bound ${(100 * wilsonLower(e.right, e.n)).toFixed(1)}%)`);
  }
  if (rest.n > 0) {
    familyShares[`${kind}:other`] = share(rest);
    console.log(`${kind} other families: ${rest.n} answers, ${((100 * rest.right) / rest.n).toFixed(1)}% right`);
  }
}
const table = tables;

// The operating point: the lowest calibrated confidence at which the development part's precision over
// every answer at or above it has the lower end of its 95% Wilson interval at or above issue #15's
// target, so the target is met beyond sampling error on the part the rules were tuned on.
const PRECISION_TARGET = 0.95;
const answers = samples
  .map((x) => ({ confidence: calibratedConfidence(x.score, x.kind, x.family as CategoryFamily, { table, shares: familyShares }), right: x.right }))
  .filter((x) => x.confidence >= CATEGORY_CONFIDENCE_THRESHOLD);
let publishFrom = CATEGORY_CONFIDENCE_THRESHOLD;
for (const from of [...new Set(answers.map((x) => x.confidence))].sort((a, b) => a - b)) {
  const kept = answers.filter((x) => x.confidence >= from);
  const right = kept.filter((x) => x.right).length;
  const lower = wilsonLower(right, kept.length);
  console.log(`published from ${from.toFixed(2)}: ${kept.length} answers, precision ${((100 * right) / kept.length).toFixed(2)}% (95% lower bound ${(100 * lower).toFixed(2)}%)`);
  publishFrom = from;
  if (lower >= PRECISION_TARGET) break;
}
console.log(`operating point: published from confidence ${publishFrom.toFixed(2)}`);
if (args.includes('--write')) {
  const body = `import type { RuleKind } from './category-rules.ts';

/**
 * The calibration tables of category.ts, as data, one per deciding rule kind: \`[lowest rule score of
 * the band, probability that the answer is right]\`. Generated by \`node scripts/calibrate-category.ts --write\` from the development part
 * of the labelled titles (${samples.length} answers); do not edit by hand.
 */
export const CALIBRATION_TABLE: Readonly<Record<RuleKind, readonly (readonly [number, number])[]>> = ${JSON.stringify(table)};

/**
 * Share of right answers of topic- and weak-decided titles per family (\`kind:family\`), for families
 * with at least ${MIN_BAND} such answers on the development part, and \`kind:other\` for the rest together,
 * as \`[share, lower end of its 95% Wilson interval]\`; the share replaces the kind's table for them, and
 * is published only when the lower end clears the publishing threshold.
 */
export const FAMILY_SHARES: Readonly<Record<string, readonly [share: number, lower: number]>> = ${JSON.stringify(familyShares)};

/**
 * The lowest calibrated confidence published (category.ts PUBLISH_AT): the lowest at which the
 * development part's precision over every answer at or above it has the lower end of its 95% Wilson
 * interval at or above ${PRECISION_TARGET * 100}% (issue #15's target).
 */
export const PUBLISH_FROM = ${publishFrom};
`;
  writeFileSync(join(ROOT, 'src/enrich/category-calibration.ts'), body);
  console.log('written src/enrich/category-calibration.ts');
}
