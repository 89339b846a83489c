/**
 * Reality signals (issue 15, "Also"): what `repost_count` and `first_seen_lag_hours` show on recorded
 * real data, computed with the ledger's own rules (src/domain/lifecycle.ts: repostKey,
 * decideRepostCount, reopenedRepostCount, decideAbsence, firstSeenLagHours) over the pipeline's own
 * mapping and enrichment. No labels: these are measurements, not accuracy figures, so there is no split.
 * - Ashby boards recorded 2025-10-28: the lag a first crawl on that day would have served (the advert's
 *   age then; a ledger that has crawled a board all along sees far smaller lags).
 * - SmartRecruiters, Allegro (allegro/allegro.tech, 497 recordings of one list call, 2018-06-08 →
 *   2021-01-20, read in place from the shared data, never copied): the recordings replayed in order as
 *   crawls of one board under the default absence rule, giving the lag at first sighting and the reposts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTarGzip } from 'nanotar';
import {
  decideAbsence,
  decideRepostCount,
  DEFAULT_ABSENCE_POLICY,
  firstSeenLagHours,
  reopenedRepostCount,
  repostKey,
  type VacancyPredecessor,
} from '../../src/domain/lifecycle.ts';
import { enrichPosting, type ProviderProfile } from '../../src/enrich/enrich.ts';
import { mapSmartRecruitersPosting } from '../../src/ingest/connectors/smartrecruiters.ts';
import { pct, type EvalContext, type Evaluator } from './context.ts';

const ASHBY_RECORDED = new Date('2025-10-28T12:00:00Z');
const SMARTRECRUITERS: ProviderProfile = { id: 'smartrecruiters', sourceType: 'ats', providerType: 'employer_ats' };

/** The q-quantile (0..1) of sorted numbers, nearest rank. */
function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function lagTable(say: (line?: string) => void, rows: Array<[string, number[], number]>): void {
  const days = (h: number) => (Math.abs(h) < 48 ? `${h} h` : `${(h / 24).toFixed(1)} d`);
  say('| data | rows | with posted_at | p10 | p25 | median | p75 | p90 | ≤ 24 h | > 30 d | negative |');
  say('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, lags, total] of rows) {
    const s = [...lags].sort((a, b) => a - b);
    const n = s.length;
    say(
      `| ${name} | ${total} | ${pct(n, total)} | ${n ? days(quantile(s, 0.1)) : '–'} | ${n ? days(quantile(s, 0.25)) : '–'} | ${n ? days(quantile(s, 0.5)) : '–'} | ${n ? days(quantile(s, 0.75)) : '–'} | ${n ? days(quantile(s, 0.9)) : '–'} | ${pct(s.filter((h) => h >= 0 && h <= 24).length, n)} | ${pct(s.filter((h) => h > 24 * 30).length, n)} | ${pct(s.filter((h) => h < 0).length, n)} |`,
    );
  }
  say();
}

interface Simulated {
  id: string;
  key: string;
  status: 'live' | 'closed';
  repostCount: number;
  missed: number;
  lastSeen: Date;
}

export const evaluator: Evaluator = {
  order: 70,
  async run(ctx: EvalContext): Promise<void> {
    const { say, fx } = ctx;
    say('## Reality signals (repost_count, first_seen_lag_hours)');
    say();
    say('Measurements, not accuracy: computed with the ledger\'s own rules (`src/domain/lifecycle.ts`) over the');
    say('pipeline\'s mapping and enrichment; no labels, so no split. The rules are in docs/lifecycle.md "Reality signals".');
    say();

    // Ashby: the lag a first crawl on the recording day would serve.
    const ashbyLags: number[] = [];
    let ashbyRows = 0;
    for (const [board, jobs] of ctx.ashbyBoards) {
      for (const raw of jobs) {
        const posting = ctx.ashbyPosting(board, raw);
        if (!posting) continue;
        ashbyRows++;
        const lag = firstSeenLagHours(posting.postedAt ? new Date(posting.postedAt) : undefined, ASHBY_RECORDED);
        if (lag !== undefined) ashbyLags.push(lag);
      }
    }

    // SmartRecruiters history: recordings in order, as crawls of one board.
    const history = join(ctx.dataDir, 'smartrecruiters/allegro-postings-history-2018-2021.tar.gz');
    const files = (existsSync(history) ? await parseTarGzip(readFileSync(history)) : [])
      .filter((f) => f.name.endsWith('.json') && f.data)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const target = { id: 'smartrecruiters:allegro', providerId: 'smartrecruiters' as const, board: 'allegro' };
    const rows = new Map<string, Simulated>();
    const srLags: number[] = [];
    let goodCrawls = 0;
    let failed = 0;
    let newRows = 0;
    let reposts = 0;
    let reopened = 0;
    let sameCrawl = 0;
    let previous: Date | undefined;
    const gaps: number[] = [];
    const repostedTitles = new Map<string, number>();
    const repostHistogram = new Map<number, number>();
    for (const file of files) {
      const stamp = /jobs_(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})_/.exec(file.name);
      if (!stamp) continue;
      const now = new Date(`${stamp[1]}-${stamp[2]}-${stamp[3]}T${stamp[4]}:${stamp[5]}:${stamp[6]}Z`);
      const text = new TextDecoder().decode(file.data);
      let content: unknown[];
      try {
        content = ((JSON.parse(text) as { content?: unknown[] }).content ?? []) as unknown[];
      } catch {
        content = [];
      }
      // A failed fetch (`undefined`) or an empty board is never evidence (the pipeline's rule).
      if (content.length === 0) {
        failed++;
        continue;
      }
      goodCrawls++;
      const first = previous === undefined;
      if (previous) gaps.push((now.getTime() - previous.getTime()) / 3_600_000);
      previous = now;
      const listed = new Map<string, { key: string; postedAt?: string; title: string }>();
      for (const raw of content) {
        const posting = mapSmartRecruitersPosting(raw, target);
        if (!posting) continue;
        const job = enrichPosting(posting, SMARTRECRUITERS, fx);
        listed.set(job.sourcePostingId, { key: repostKey(job.title, job.location), postedAt: job.postedAt, title: `${job.title} (${job.location ?? ''})` });
      }
      const listedIds = new Set([...listed.keys()].filter((id) => rows.has(id)));
      const scope = { listedIds, completeCrawlOf: target.id };
      const byKey = new Map<string, VacancyPredecessor[]>();
      for (const r of rows.values()) {
        const list = byKey.get(r.key) ?? [];
        list.push({ id: r.id, status: r.status, targetId: target.id, repostCount: r.repostCount });
        byKey.set(r.key, list);
      }
      for (const [id, seen] of listed) {
        const row = rows.get(id);
        if (!row) {
          const repostCount = decideRepostCount(byKey.get(seen.key) ?? [], scope);
          rows.set(id, { id, key: seen.key, status: 'live', repostCount, missed: 0, lastSeen: now });
          newRows++;
          if (repostCount > 0) {
            reposts++;
            repostedTitles.set(seen.title, Math.max(repostedTitles.get(seen.title) ?? 0, repostCount));
            // Reposted while the earlier row was still live in the ledger (it left the board in this crawl).
            if (!(byKey.get(seen.key) ?? []).some((p) => p.status === 'closed')) sameCrawl++;
          }
          // The first crawl's rows were on the board before the ledger started: their lag is their age.
          const lag = first ? undefined : firstSeenLagHours(seen.postedAt ? new Date(seen.postedAt) : undefined, now);
          if (lag !== undefined) srLags.push(lag);
          continue;
        }
        if (row.status === 'closed') {
          row.status = 'live';
          row.repostCount = reopenedRepostCount(row.repostCount);
          reopened++;
        }
        row.key = seen.key;
        row.missed = 0;
        row.lastSeen = now;
      }
      for (const row of rows.values()) {
        if (row.status !== 'live' || listed.has(row.id)) continue;
        row.missed++;
        if (decideAbsence(row.missed, row.lastSeen, now, DEFAULT_ABSENCE_POLICY) === 'close_not_seen') row.status = 'closed';
      }
    }
    for (const r of rows.values()) repostHistogram.set(r.repostCount, (repostHistogram.get(r.repostCount) ?? 0) + 1);

    say('### How far posted_at lags first_seen_at (`first_seen_lag_hours`)');
    say();
    lagTable(say, [
      ['Ashby, a first crawl on the recording day (2025-10-28)', ashbyLags, ashbyRows],
      [`SmartRecruiters Allegro, crawled at each recording (${goodCrawls} good, ${failed} failed or empty), rows new after the first crawl`, srLags, srLags.length],
    ]);
    const sortedGaps = [...gaps].sort((a, b) => a - b);
    say(`Allegro recordings: median ${quantile(sortedGaps, 0.5).toFixed(1)} h apart (p90 ${quantile(sortedGaps, 0.9).toFixed(0)} h).`);
    say();
    say('Ashby: the lag of a ledger\'s first crawl is the advert\'s age, so it says how old the boards\' inventory is, not how');
    say('fast a steady ledger finds new adverts. The Allegro history is a steady crawl (one recording a day or so, when the');
    say('file changed): there the lag is mostly the time between recordings; a negative lag is a `releasedDate` later than');
    say('the first recording that listed the posting (the employer re-dated it).');
    say();
    say('### Reposts (`repost_count`), SmartRecruiters Allegro history');
    say();
    say('| rows (distinct posting ids) | new rows that are reposts | closed rows that came back (same id) | rows by repost_count |');
    say('|---:|---:|---:|---|');
    const histogram = [...repostHistogram.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}: ${v}`).join(', ');
    say(`| ${rows.size} | ${reposts} (${pct(reposts, newRows)}) | ${reopened} | ${histogram} |`);
    say();
    say(`Of the ${reposts} reposts, ${sameCrawl} replaced a posting in the same crawl (the earlier row was still live in the`);
    say('ledger, waiting for the absence rule); the rest came after the earlier row had closed. Most reposted adverts:');
    say();
    const top = [...repostedTitles.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
    for (const [title, count] of top) say(`- ${title}: repost_count ${count}`);
    say();
    say('The recorder\'s query changed twice (2018-06-13 and 2019-10-14: company identifier and department filter), so');
    say('some postings "closed" only because the query stopped listing them; a posting listed again later counts as');
    say('a reopening. In the demo ledger every board is one recording, crawled once, so every row has `repost_count` 0.');
    say();
  },
};
