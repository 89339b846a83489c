/**
 * Country figures: precision and coverage of the resolved `country` on hand-labelled Ashby rows
 * (eval/labels/locations.jsonl), split by employer (board).
 */
import { enrichPosting } from '../../src/enrich/enrich.ts';
import { ASHBY, ashbySplit, pct, readJsonl, SPLITS, type EvalContext, type Evaluator } from './context.ts';

interface LocLabel {
  board: string;
  id: string;
  location: string | null;
  country: string | null;
}

export const evaluator: Evaluator = {
  order: 30,
  run(ctx: EvalContext): void {
    const { say } = ctx;
    say('## Country');
    say();
    const parts = { dev: { n: 0, single: 0, published: 0, correct: 0, singlePublished: 0 }, test: { n: 0, single: 0, published: 0, correct: 0, singlePublished: 0 } };
    const wrong: string[] = [];
    for (const l of readJsonl<LocLabel>('locations.jsonl')) {
      const found = ctx.ashbyById.get(`${l.board}|${l.id}`);
      const posting = found && ctx.ashbyPosting(found.board, found.raw);
      if (!posting) continue;
      const job = enrichPosting(posting, ASHBY, ctx.fx);
      const split = ashbySplit(l.board);
      const s = parts[split];
      s.n++;
      if (l.country) s.single++;
      if (!job.country) continue;
      s.published++;
      if (job.country === l.country) s.correct++;
      else if (split === 'test') wrong.push(`${l.location} → ${job.country} (label ${l.country ?? 'none'})`);
      if (l.country) s.singlePublished++;
    }
    say('Precision: of the rows that get a `country`, the share where it is the labelled country (a country published on a row');
    say('labelled as naming several countries or none counts as wrong). Coverage: of the rows whose location names a single');
    say('country, the share that get one. Input is everything the Ashby row carries (location, secondary locations, postal addresses).');
    say('**test** = held-out employers.');
    say();
    say('| part | rows | single-country rows | precision | coverage |');
    say('|---|---|---|---|---|');
    for (const split of SPLITS) {
      const s = parts[split];
      say(`| ${split} | ${s.n} | ${s.single} | ${pct(s.correct, s.published)} (${s.correct}/${s.published}) | ${pct(s.singlePublished, s.single)} (${s.singlePublished}/${s.single}) |`);
    }
    say();
    if (wrong.length) say(`Test-part wrong answers: ${wrong.join('; ')}.`);
    say();
  },
};
