/**
 * What every evaluator of `npm run eval:enrich` shares: the real data, the labels, the fixed
 * employer split and the report writer. One evaluator module per enrichment class sits next to this
 * file (`scripts/eval/<class>.ts`) and exports `evaluator`; scripts/eval-enrich.ts finds and runs
 * every such module in `order`, so adding a class's figures is adding one file.
 *
 * The split is **by employer**, never by row: an Ashby board is one employer, and all its postings
 * (which share the employer's templates) land in one part, `dev` (rules were tuned looking at it) or
 * `test` (held out: never tuned on). Fixed hash: `sha256("split:" + key)`, first byte even → dev.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTarGzip } from 'nanotar';
import type { SourcePosting } from '../../src/domain/posting.ts';
import { boardContext, type BoardContext, type ProviderProfile } from '../../src/enrich/enrich.ts';
import { loadFxRates, type FxRates } from '../../src/enrich/fx.ts';
import { mapAshbyJob } from '../../src/ingest/connectors/ashby.ts';

export type Split = 'dev' | 'test';
export const SPLITS: readonly Split[] = ['dev', 'test'];

/** Fixed hash split: even first byte of sha256 → dev, odd → test. */
export function splitOf(key: string): Split {
  return (createHash('sha256').update(`split:${key}`).digest()[0]! & 1) === 0 ? 'dev' : 'test';
}

/** The employer split of an Ashby board (one board = one employer). */
export const ashbySplit = (board: string): Split => splitOf(`ashby:${board}`);

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Read `eval/labels/<file>` as JSON lines. */
export function readJsonl<T>(file: string): T[] {
  return readFileSync(join(ROOT, 'eval/labels', file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

/** A percentage with one decimal, or an en dash when there is nothing to divide. */
export const pct = (a: number, b: number): string => (b === 0 ? '–' : `${((100 * a) / b).toFixed(1)}%`);

/**
 * The 95% Wilson score interval of `right` out of `n`, as shares `[lower, upper]` (Wilson 1927; what
 * a measured share could be, given the sample's size: 15 right of 25 is 0.60, but could well be 0.45).
 */
export function wilsonInterval(right: number, n: number): readonly [lower: number, upper: number] {
  if (n === 0) return [0, 1];
  const z = 1.96;
  const p = right / n;
  const centre = p + (z * z) / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [(centre - spread) / (1 + (z * z) / n), (centre + spread) / (1 + (z * z) / n)];
}

export const ASHBY: ProviderProfile = { id: 'ashby', sourceType: 'ats', providerType: 'employer_ats' };

export interface UsajobsRow {
  position_title: string;
  agency?: string;
  occupation_series?: string[];
}

/** Everything an evaluator reads. */
export interface EvalContext {
  dataDir: string;
  fx: FxRates;
  /** Ashby board name → its raw postings (`jobs` of the recorded response). */
  ashbyBoards: Map<string, unknown[]>;
  /** `board|id` → the raw posting and its board. */
  ashbyById: Map<string, { board: string; raw: Record<string, unknown> }>;
  usajobs: UsajobsRow[];
  /** The Ashby connector's mapping of one raw posting, as the pipeline runs it. */
  ashbyPosting(board: string, raw: unknown): SourcePosting | undefined;
  /**
   * The board-level evidence the pipeline gives `enrichPosting` (enrich.ts `boardContext`), read from
   * the board's other postings (`except` left out), as a crawl of that board would.
   */
  boardOf(board: string, except?: string): BoardContext;
  /** Append a line to the report (and print it). */
  say(line?: string): void;
}

/** One class's figures. */
export interface Evaluator {
  /** Position in the report (category 10, seniority 20, country 30, salary 40, remote 50, ...). */
  order: number;
  run(ctx: EvalContext): void | Promise<void>;
}

/** Load the shared real data (`dataDir`: ashby/boards.tar.gz, usajobs/announcements.tar.gz). */
export async function loadEvalContext(dataDir: string, say: (line?: string) => void): Promise<EvalContext> {
  const ashbyBoards = new Map<string, unknown[]>();
  for (const file of await parseTarGzip(readFileSync(join(dataDir, 'ashby/boards.tar.gz')))) {
    const name = file.name.split('/').pop() ?? '';
    if (!name.endsWith('.json') || !file.data) continue;
    const payload = JSON.parse(new TextDecoder().decode(file.data)) as { jobs?: unknown[] };
    ashbyBoards.set(name.slice(0, -5), payload.jobs ?? []);
  }
  const ashbyById = new Map<string, { board: string; raw: Record<string, unknown> }>();
  for (const [board, jobs] of ashbyBoards) for (const raw of jobs as Record<string, unknown>[]) ashbyById.set(`${board}|${String(raw['id'])}`, { board, raw });
  const usajobs: UsajobsRow[] = [];
  for (const file of await parseTarGzip(readFileSync(join(dataDir, 'usajobs/announcements.tar.gz')))) {
    if (!file.name.endsWith('.json') || !file.data) continue;
    usajobs.push(...(JSON.parse(new TextDecoder().decode(file.data)) as UsajobsRow[]));
  }
  const ashbyPosting = (board: string, raw: unknown): SourcePosting | undefined => mapAshbyJob(raw, { id: `ashby:${board}`, providerId: 'ashby', board }) ?? undefined;
  const boardOf = (board: string, except?: string): BoardContext =>
    boardContext(
      ((ashbyBoards.get(board) ?? []) as Record<string, unknown>[])
        .filter((raw) => String(raw['id']) !== except)
        .map((raw) => ashbyPosting(board, raw))
        .filter((p): p is SourcePosting => p !== undefined),
    );
  return { dataDir, fx: loadFxRates(), ashbyBoards, ashbyById, usajobs, ashbyPosting, boardOf, say };
}
