/**
 * Measure the title classifier (src/enrich/category.ts) on real titles.
 *
 * Usage: node scripts/measure-category.ts <opm-series-families.json> <usajobs-dir> [ashby-dir]
 *   <opm-series-families.json>: the design's OPM series → family map (design/opm-series-families.json).
 *   <usajobs-dir>: an extracted data/usajobs/announcements.tar.gz (JSON arrays with `position_title`
 *                  and `occupation_series`).
 *   [ashby-dir]:   an extracted data/ashby/boards.tar.gz (`{"jobs":[...]}` per board); optional, for
 *                  coverage and a fixed sample (every 40th title) to check by eye.
 *
 * Gold family per USAJOBS title: the OPM map gives each series a family (series it leaves out, and titles whose series disagree, are not measured); for series 2210
 * the title's parenthetical refines it (INFOSEC → Security, CUSTSPT → Customer Support, DATAMGT →
 * Data & Analytics). Reports precision (published and correct / published), coverage (published /
 * measured) and the most frequent wrong answers.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { classifyCategory } from '../src/enrich/category.ts';

interface OpmMap {
  series: Record<string, string>;
  series_2210_title_overrides: Record<string, string>;
}

const [opmPath, usajobsDir, ashbyDir] = process.argv.slice(2);
if (!opmPath || !usajobsDir) {
  console.error('usage: node scripts/measure-category.ts <opm-series-families.json> <usajobs-dir> [ashby-dir]');
  process.exit(2);
}
const opm = JSON.parse(readFileSync(opmPath, 'utf8')) as OpmMap;

function goldFamily(title: string, series: string[]): string | undefined {
  const families = new Set<string>();
  for (const s of series) {
    const code = s.split(' - ')[0]?.trim() ?? '';
    let family = opm.series[code];
    if (code === '2210') {
      for (const [marker, f] of Object.entries(opm.series_2210_title_overrides)) {
        if (title.toUpperCase().includes(marker.toUpperCase())) family = f;
      }
    }
    if (family) families.add(family);
  }
  return families.size === 1 ? [...families][0] : undefined;
}

let measured = 0;
let published = 0;
let correct = 0;
const confusion = new Map<string, number>();
const perFamily = new Map<string, { measured: number; published: number; correct: number }>();
const perPrediction = new Map<string, { published: number; correct: number }>();
for (const file of readdirSync(usajobsDir).filter((f) => f.endsWith('.json'))) {
  const rows = JSON.parse(readFileSync(join(usajobsDir, file), 'utf8')) as { position_title: string; occupation_series?: string[] }[];
  for (const row of rows) {
    const gold = goldFamily(row.position_title, row.occupation_series ?? []);
    if (!gold) continue;
    measured++;
    const stats = perFamily.get(gold) ?? { measured: 0, published: 0, correct: 0 };
    stats.measured++;
    const { category } = classifyCategory(row.position_title);
    if (category) {
      published++;
      stats.published++;
      const predicted = perPrediction.get(category) ?? { published: 0, correct: 0 };
      predicted.published++;
      if (category === gold) predicted.correct++;
      perPrediction.set(category, predicted);
      if (category === gold) {
        correct++;
        stats.correct++;
      } else {
        const k = `${gold} → ${category}: ${row.position_title}`;
        confusion.set(k, (confusion.get(k) ?? 0) + 1);
      }
    }
    perFamily.set(gold, stats);
  }
}
const pct = (a: number, b: number): string => (b === 0 ? '-' : `${((100 * a) / b).toFixed(1)}%`);
console.log(`USAJOBS: ${measured} titles with a gold family; published ${published} (coverage ${pct(published, measured)}); precision ${pct(correct, published)}`);
console.log('By gold family (coverage; share of the published answers that are right):');
for (const [family, s] of [...perFamily].sort((a, b) => b[1].measured - a[1].measured)) {
  console.log(`  ${family.padEnd(24)} n=${String(s.measured).padStart(5)}  coverage ${pct(s.published, s.measured).padStart(6)}  right ${pct(s.correct, s.published).padStart(6)}`);
}
console.log('By published family (precision):');
for (const [family, s] of [...perPrediction].sort((a, b) => b[1].published - a[1].published)) {
  console.log(`  ${family.padEnd(24)} published ${String(s.published).padStart(5)}  precision ${pct(s.correct, s.published).padStart(6)}`);
}
console.log('Most frequent wrong answers:');
for (const [k, n] of [...confusion].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${String(n).padStart(4)}  ${k}`);

if (ashbyDir) {
  let total = 0;
  let withCategory = 0;
  const sample: string[] = [];
  for (const file of readdirSync(ashbyDir).filter((f) => f.endsWith('.json')).sort()) {
    const board = JSON.parse(readFileSync(join(ashbyDir, file), 'utf8')) as { jobs?: { title: string; department?: string; team?: string }[] };
    for (const job of board.jobs ?? []) {
      total++;
      const r = classifyCategory(job.title, { department: job.department, team: job.team });
      if (r.category) withCategory++;
      // Every 40th posting, so the sample spreads over all boards and is the same on every run.
      if (total % 40 === 0) sample.push(`  ${(r.category ?? '-').padEnd(22)} ${String(r.confidence ?? '').padEnd(5)} ${job.title}  [${job.department ?? ''} / ${job.team ?? ''}]`);
    }
  }
  console.log(`Ashby: ${total} titles; category published on ${withCategory} (coverage ${pct(withCategory, total)}). Sample:`);
  console.log(sample.join('\n'));
}
