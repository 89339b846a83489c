/**
 * Intermediary boards (issue 15 class 2): how many boards run by a staffing agency or a job board are
 * still served as employer-direct, on the labelled Ashby boards (eval/labels/poster-types.json) split by
 * board into a development and a held-out part (the same fixed hash as scripts/eval-enrich.ts), and on
 * the demo corpus (fixtures/manifest.json).
 *
 * A board counts as "served as employer-direct" when any of its rows would be served by default: its
 * postings go through `enrichPosting` and the board judgement (`judgeBoard`) exactly as the pipeline
 * runs them (`applyBoardPosterType`, as src/ingest/pipeline.ts does).
 *
 * Usage: node scripts/eval/intermediaries.ts [--data <dir>]   (prints markdown)
 * As a module: `evaluateIntermediaries(dataDir)` returns the figures and the markdown section, and
 * `evaluator` puts that section into `npm run eval:enrich` like every other class.
 * The split is context.ts's employer split (`ashbySplit`, the same as every other class's).
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTarGzip } from 'nanotar';
import type { SourcePosting } from '../../src/domain/posting.ts';
import { enrichPosting, type ProviderProfile } from '../../src/enrich/enrich.ts';
import { loadFxRates } from '../../src/enrich/fx.ts';
import { applyBoardPosterType } from '../../src/enrich/intermediary.ts';
import { mapAshbyJob } from '../../src/ingest/connectors/ashby.ts';
import { mapGreenhouseJob } from '../../src/ingest/connectors/greenhouse.ts';
import { mapLeverPosting } from '../../src/ingest/connectors/lever.ts';
import { ashbySplit, type EvalContext, type Evaluator, type Split } from './context.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const fx = loadFxRates();


/** One board's verdict. */
export interface BoardResult {
  board: string;
  rows: number;
  /** Rows that would be served by default (no poster type). */
  servedRows: number;
  ruleIds: string[];
}

function judge(board: string, postings: SourcePosting[], provider: ProviderProfile): BoardResult {
  const rows = postings.map((posting) => ({ posting, job: enrichPosting(posting, provider, fx) }));
  applyBoardPosterType(rows);
  return {
    board,
    rows: rows.length,
    servedRows: rows.filter((r) => r.job.posterType === undefined).length,
    ruleIds: [...new Set(rows.map((r) => r.job.posterRuleId).filter((x): x is string => x !== undefined))],
  };
}

export interface IntermediaryFigures {
  parts: Record<Split, { intermediaryBoards: number; servedAsEmployer: string[]; employerBoards: number; wronglyFlagged: string[] }>;
  demo: { boards: number; flagged: BoardResult[]; servedIntermediaries: string[] };
  markdown: string;
}

/** Run the evaluation over the shared data in `dataDir` (reads ashby/boards.tar.gz). */
export async function evaluateIntermediaries(dataDir: string): Promise<IntermediaryFigures> {
  const labels = JSON.parse(readFileSync(join(ROOT, 'eval/labels/poster-types.json'), 'utf8')) as { boards: Record<string, string> };
  const ashby: ProviderProfile = { id: 'ashby', sourceType: 'ats', providerType: 'employer_ats' };
  const parts: IntermediaryFigures['parts'] = {
    dev: { intermediaryBoards: 0, servedAsEmployer: [], employerBoards: 0, wronglyFlagged: [] },
    test: { intermediaryBoards: 0, servedAsEmployer: [], employerBoards: 0, wronglyFlagged: [] },
  };
  for (const file of await parseTarGzip(readFileSync(join(dataDir, 'ashby/boards.tar.gz')))) {
    const name = file.name.split('/').pop() ?? '';
    if (!name.endsWith('.json') || !file.data) continue;
    const board = name.slice(0, -5);
    const jobs = (JSON.parse(new TextDecoder().decode(file.data)) as { jobs?: unknown[] }).jobs ?? [];
    const postings = jobs.map((raw) => mapAshbyJob(raw, { id: `ashby:${board}`, providerId: 'ashby', board })).filter((p): p is SourcePosting => p !== null && p !== undefined);
    if (postings.length === 0) continue;
    const result = judge(board, postings, ashby);
    const part = parts[ashbySplit(board)];
    if (labels.boards[board]) {
      part.intermediaryBoards++;
      if (result.servedRows > 0) part.servedAsEmployer.push(`${board} (${result.servedRows}/${result.rows} rows)`);
    } else {
      part.employerBoards++;
      if (result.servedRows < result.rows) part.wronglyFlagged.push(`${board} (${result.rows - result.servedRows}/${result.rows} rows: ${result.ruleIds.join(', ')})`);
    }
  }

  const manifest = JSON.parse(readFileSync(join(ROOT, 'fixtures/manifest.json'), 'utf8')) as Array<{ provider: string; board: string; company?: string; domain?: string; file?: string }>;
  const demo: IntermediaryFigures['demo'] = { boards: 0, flagged: [], servedIntermediaries: [] };
  for (const entry of manifest) {
    const target = { id: `${entry.provider}:${entry.board}`, providerId: entry.provider, board: entry.board, companyName: entry.company, companyDomain: entry.domain } as Parameters<typeof mapAshbyJob>[1];
    let postings: SourcePosting[];
    if (entry.provider === 'ashby') {
      const payload = JSON.parse(gunzipSync(readFileSync(join(ROOT, 'fixtures/ashby', `${entry.board}.json.gz`))).toString('utf8')) as { jobs?: unknown[] };
      postings = (payload.jobs ?? []).map((raw) => mapAshbyJob(raw, target)).filter((p): p is SourcePosting => !!p);
    } else if (entry.provider === 'greenhouse' || entry.provider === 'lever') {
      const dir = join(ROOT, 'fixtures', entry.provider);
      const payload = JSON.parse(readFileSync(join(dir, `${entry.board}.json`), 'utf8')) as unknown;
      const list = entry.provider === 'greenhouse' ? ((payload as { jobs?: unknown[] }).jobs ?? []) : (payload as unknown[]);
      postings = list.map((raw) => (entry.provider === 'greenhouse' ? mapGreenhouseJob(raw, target) : mapLeverPosting(raw, target))).filter((p): p is SourcePosting => !!p);
    } else continue;
    if (postings.length === 0) continue;
    demo.boards++;
    const result = judge(entry.board, postings, { id: entry.provider, sourceType: 'ats', providerType: 'employer_ats' });
    if (result.servedRows < result.rows) demo.flagged.push(result);
    if (labels.boards[entry.board] && result.servedRows > 0) demo.servedIntermediaries.push(entry.board);
  }

  const lines: string[] = [];
  lines.push('## Intermediary boards (issue 15 class 2)');
  lines.push('');
  lines.push('Boards run by a staffing agency or a job board (`eval/labels/poster-types.json`) that still serve any row as');
  lines.push('employer-direct, and employer boards wrongly flagged, after `enrichPosting` and the board judgement');
  lines.push('(`src/enrich/intermediary.ts`). Split by board with the fixed hash; thresholds were set on **dev** only.');
  lines.push('');
  lines.push('| part | intermediary boards | served as employer-direct | employer boards | wrongly flagged |');
  lines.push('|---|---|---|---|---|');
  for (const split of ['dev', 'test'] as const) {
    const p = parts[split];
    lines.push(`| ${split} | ${p.intermediaryBoards} | ${p.servedAsEmployer.length}${p.servedAsEmployer.length ? `: ${p.servedAsEmployer.join(', ')}` : ''} | ${p.employerBoards} | ${p.wronglyFlagged.length}${p.wronglyFlagged.length ? `: ${p.wronglyFlagged.join('; ')}` : ''} |`);
  }
  lines.push('');
  lines.push(`Demo corpus (\`fixtures/manifest.json\`, ${demo.boards} boards with postings): ${demo.servedIntermediaries.length} labelled intermediary boards served as employer-direct; boards flagged: ${demo.flagged.length ? demo.flagged.map((b) => `${b.board} (${b.rows - b.servedRows}/${b.rows}, ${b.ruleIds.join(', ')})`).join('; ') : 'none'}.`);
  return { parts, demo, markdown: lines.join('\n') };
}

/** This class's section of `npm run eval:enrich` (see context.ts). */
export const evaluator: Evaluator = {
  order: 60,
  async run(ctx: EvalContext): Promise<void> {
    const figures = await evaluateIntermediaries(ctx.dataDir);
    for (const line of figures.markdown.split('\n')) ctx.say(line);
    ctx.say();
  },
};

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--data');
  const dataDir = resolve((i >= 0 ? args[i + 1] : undefined) ?? process.env.JOBLEDGER_EVAL_DATA ?? '/work/shared/data');
  console.log((await evaluateIntermediaries(dataDir)).markdown);
}
