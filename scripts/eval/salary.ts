/**
 * Salary-from-text figures: precision and recall of the advert-text parser on hand-labelled Ashby
 * descriptions (eval/labels/salaries.jsonl), split by employer (board), plus a check against Ashby's
 * own structured compensation. The structured salary is removed first, so the parser reads every
 * labelled description; the board context comes from the board's other rows, as a crawl gives it.
 */
import { enrichPosting } from '../../src/enrich/enrich.ts';
import { ASHBY, ashbySplit, pct, readJsonl, SPLITS, type EvalContext, type Evaluator } from './context.ts';

interface SalLabel {
  board: string;
  id: string;
  pay: 'salary' | 'none' | 'ambiguous';
  salary?: { min?: number; max?: number; currency: string; period: string };
}

export const evaluator: Evaluator = {
  order: 40,
  run(ctx: EvalContext): void {
    const { say, fx } = ctx;
    say('## Salary parsed from the advert text');
    say();
    const parts = { dev: { n: 0, withPay: 0, published: 0, correct: 0 }, test: { n: 0, withPay: 0, published: 0, correct: 0 } };
    const wrong: string[] = [];
    const missed: string[] = [];
    for (const l of readJsonl<SalLabel>('salaries.jsonl')) {
      const found = ctx.ashbyById.get(`${l.board}|${l.id}`);
      const posting = found && ctx.ashbyPosting(found.board, found.raw);
      if (!posting) continue;
      const { salary: _structured, ...rest } = posting;
      const job = enrichPosting(rest, ASHBY, fx, ctx.boardOf(l.board, l.id));
      const split = ashbySplit(l.board);
      const s = parts[split];
      s.n++;
      if (l.pay === 'salary') s.withPay++;
      const got = job.salary;
      if (!got) {
        if (l.pay === 'salary' && split === 'test') missed.push(`${l.board} ${JSON.stringify(l.salary)}`);
        continue;
      }
      s.published++;
      const g = l.salary;
      const right = l.pay === 'salary' && g !== undefined && got.min === g.min && got.max === g.max && got.currency === g.currency && got.period === g.period;
      if (right) s.correct++;
      else wrong.push(`${split} ${l.board}/${l.id}: published ${JSON.stringify({ min: got.min, max: got.max, currency: got.currency, period: got.period })}, label ${l.pay} ${JSON.stringify(g ?? {})}`);
    }
    say('Precision: of the descriptions where a salary is published, the share where range, currency and period all equal');
    say('what the text states (publishing on a description that states no single pay counts as wrong). Recall: of the');
    say('descriptions that state one pay figure or range, the share where exactly that salary is published. The structured');
    say('salary is removed first, so the parser reads every labelled description. **test** = held-out employers.');
    say();
    say('| part | descriptions | stating one salary | published | precision | recall |');
    say('|---|---|---|---|---|---|');
    for (const split of SPLITS) {
      const s = parts[split];
      say(`| ${split} | ${s.n} | ${s.withPay} | ${s.published} | ${pct(s.correct, s.published)} | ${pct(s.correct, s.withPay)} |`);
    }
    say();
    if (wrong.length) say(`Wrong answers: ${wrong.join('; ')}.`);
    if (missed.length) say(`Test-part misses (label): ${missed.join('; ')}.`);
    say();

    let structured = 0;
    let parsedToo = 0;
    let agree = 0;
    for (const [board, jobs] of ctx.ashbyBoards) {
      for (const raw of jobs) {
        const posting = ctx.ashbyPosting(board, raw);
        if (!posting?.salary || posting.salary.min === undefined) continue;
        structured++;
        const { salary: s, ...rest } = posting;
        const job = enrichPosting(rest, ASHBY, fx);
        if (!job.salary) continue;
        parsedToo++;
        if (job.salary.min === s.min && job.salary.max === s.max && job.salary.currency === s.currency && job.salary.period === s.period) agree++;
      }
    }
    say(`Check against Ashby's structured compensation: of ${structured} postings that carry one, the parser (run with it`);
    say(`removed) publishes a salary on ${parsedToo}, and on ${pct(agree, parsedToo)} of those it equals the structured figure. Differences`);
    say('are mostly the text and the structured field disagreeing (e.g. text $75,000–$95,000, field 70,000–95,000); the labels');
    say('above follow the text.');
    say();
  },
};
