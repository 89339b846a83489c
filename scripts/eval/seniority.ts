/**
 * Seniority figures: accuracy of `classifySeniority` on hand-labelled titles (eval/labels/titles.jsonl,
 * titles-handwritten.jsonl). Ashby titles are split by employer (board); NAV and hand-written titles,
 * which have no employer in common, by title.
 */
import { classifySeniority } from '../../src/enrich/seniority.ts';
import { pct, readJsonl, splitOf, SPLITS, type EvalContext, type Evaluator, type Split } from './context.ts';

interface TitleLabel {
  source: string;
  board?: string;
  title: string;
  seniority: string | null;
}

const splitOfTitle = (l: TitleLabel): Split => splitOf(l.source === 'ashby' ? `ashby:${l.board}` : `${l.source}:${l.title}`);

export const evaluator: Evaluator = {
  order: 20,
  run({ say }: EvalContext): void {
    say('## Seniority');
    say();
    const parts = { dev: { n: 0, right: 0 }, test: { n: 0, right: 0 } };
    const errors = new Map<string, number>();
    for (const l of [...readJsonl<TitleLabel>('titles.jsonl'), ...readJsonl<TitleLabel>('titles-handwritten.jsonl')]) {
      if (l.seniority === null) continue;
      const split = splitOfTitle(l);
      const predicted = classifySeniority(l.title) ?? 'not_stated';
      parts[split].n++;
      if (predicted === l.seniority) parts[split].right++;
      else if (split === 'test') errors.set(`${l.seniority} → ${predicted}`, (errors.get(`${l.seniority} → ${predicted}`) ?? 0) + 1);
    }
    say('Accuracy (the level, or `not_stated`, equals the label) on hand-labelled real titles (Ashby, NAV) and the hand-written');
    say('non-English titles; **test** = held-out employers (Ashby boards) and held-out titles:');
    say();
    say('| part | titles | accuracy |');
    say('|---|---|---|');
    for (const split of SPLITS) say(`| ${split} | ${parts[split].n} | ${pct(parts[split].right, parts[split].n)} |`);
    say();
    say(`Test-part errors (label → answer): ${[...errors].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ×${v}`).join(', ') || 'none'}.`);
    say();
  },
};
