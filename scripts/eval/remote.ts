/**
 * Remote figures, split by employer (board):
 * - agreement with the advert text on hand-labelled Ashby rows (eval/labels/remote.jsonl): where the
 *   title, location or description states this job's workplace mode, how often the served `remote`
 *   equals it; where the text states none, how often a mode is nevertheless inferred (it must not be);
 * - the share of each value and provenance over all Ashby rows;
 * - the title/location inference checked against Ashby's own `isRemote` (hidden from it).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { enrichPosting } from '../../src/enrich/enrich.ts';
import { resolveRemote } from '../../src/enrich/remote.ts';
import { ASHBY, ashbySplit, pct, readJsonl, ROOT, SPLITS, type EvalContext, type Evaluator } from './context.ts';

interface RemoteLabel {
  board: string;
  id: string;
  /** The mode the advert text states for this job, or null when it states none. */
  mode: 'remote' | 'hybrid' | 'on_site' | null;
  /**
   * 2 for the second labelling round: held-out boards nobody had read before the rules were last
   * changed (the first round's test part was read once, so it is no longer unseen).
   */
  round?: number;
}

export const evaluator: Evaluator = {
  order: 50,
  run(ctx: EvalContext): void {
    const { say, fx } = ctx;
    say('## Remote');
    say();
    const blank = () => ({ stated: 0, served: 0, agree: 0, silent: 0, inferredOnSilent: 0, onSiteFromFlagOnly: 0 });
    const parts = { dev: blank(), test: blank(), fresh: blank() };
    const wrong: string[] = [];
    // The part whose disagreements are listed: test in the report; JOBLEDGER_EVAL_SHOW=dev while tuning.
    const shown = process.env.JOBLEDGER_EVAL_SHOW === 'dev' ? 'dev' : 'test';
    const labelled = existsSync(join(ROOT, 'eval/labels/remote.jsonl'));
    for (const l of labelled ? readJsonl<RemoteLabel>('remote.jsonl') : []) {
      const found = ctx.ashbyById.get(`${l.board}|${l.id}`);
      const posting = found && ctx.ashbyPosting(found.board, found.raw);
      if (!posting) continue;
      const job = enrichPosting(posting, ASHBY, fx);
      const split = ashbySplit(l.board);
      const s = l.round === 2 ? parts.fresh : parts[split];
      if (l.mode) {
        s.stated++;
        if (!job.remote) continue;
        s.served++;
        if (job.remote === l.mode) s.agree++;
        else if (split === shown || l.round === 2) wrong.push(`${l.board}/${l.id.slice(0, 8)}: ${job.remote} (${job.fieldSources.remote}), text says ${l.mode}`);
      } else {
        s.silent++;
        if (job.remote && job.fieldSources.remote === 'inferred') {
          s.inferredOnSilent++;
          if (split === shown) wrong.push(`${l.board}/${l.id.slice(0, 8)}: ${job.remote} (inferred), text states no mode`);
        }
      }
    }
    if (!labelled) say('**No remote labels yet** (`eval/labels/remote.jsonl` is missing): the agreement table below is empty.');
    say('Hand labels (`eval/labels/remote.jsonl`): the workplace mode the advert text states for the job, read from its title,');
    say('location and description. Agreement: of the rows whose text states a mode and that get a `remote` value, the share');
    say('where it is that mode; coverage: the share of those rows that get a value. Inferred on silent text: rows whose text');
    say('states no mode but get an inferred value (must be 0). **test** = held-out employers.');
    say();
    say('| part | rows stating a mode | with a value | agreement | rows stating none | inferred on silent text |');
    say('|---|---|---|---|---|---|');
    for (const split of [...SPLITS, 'fresh'] as const) {
      const s = parts[split];
      const name = split === 'fresh' ? '**test, round 2 (boards unseen until the rules were final)**' : split === 'test' ? 'test, round 1 (read once, see below)' : split;
      say(`| ${name} | ${s.stated} | ${s.served} (${pct(s.served, s.stated)}) | ${pct(s.agree, s.served)} (${s.agree}/${s.served}) | ${s.silent} | ${s.inferredOnSilent} |`);
    }
    say();
    if (wrong.length) say(`${shown === 'test' ? 'Test' : 'Dev'}-part disagreements: ${wrong.join('; ')}.`);
    say();

    const values = new Map<string, number>();
    const provenance = { published: 0, inferred: 0, absent: 0 };
    let total = 0;
    for (const [board, jobs] of ctx.ashbyBoards) {
      for (const raw of jobs) {
        const posting = ctx.ashbyPosting(board, raw);
        if (!posting) continue;
        total++;
        const job = enrichPosting(posting, ASHBY, fx);
        provenance[job.fieldSources.remote]++;
        const key = `${job.remote ?? 'not_stated'} (${job.fieldSources.remote}; flag ${posting.remoteFlag ?? 'none'})`;
        values.set(key, (values.get(key) ?? 0) + 1);
      }
    }
    say(`Over all ${total} Ashby postings: published ${pct(provenance.published, total)}, inferred ${pct(provenance.inferred, total)}, not stated ${pct(provenance.absent, total)}.`);
    say(`Values (provenance; the source flag): ${[...values].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
    say('Ashby `isRemote: false` says only "not fully remote" (flag `not_remote`): it never yields `on_site` by itself.');
    say('Ashby `isRemote: true` is also set on hybrid postings (flag `remote_or_hybrid`): remote unless the title, location or advert says hybrid.');
    say();

    // The title/location inference measured against Ashby's own isRemote flag, hidden: a check, not gold
    // (the flag is a boolean and cannot say hybrid).
    const check = { dev: { flagged: 0, inferred: 0, agree: 0, hybrid: 0 }, test: { flagged: 0, inferred: 0, agree: 0, hybrid: 0 } };
    for (const [board, jobs] of ctx.ashbyBoards) {
      const c = check[ashbySplit(board)];
      for (const raw of jobs) {
        const posting = ctx.ashbyPosting(board, raw);
        if (!posting?.remoteFlag) continue;
        c.flagged++;
        const r = resolveRemote({ texts: [posting.title, posting.location ?? ''], secondaryTexts: posting.locations.map((l) => l.text ?? '') });
        if (!r.remote) continue;
        if (r.remote === 'hybrid') {
          c.hybrid++;
          continue;
        }
        c.inferred++;
        if ((r.remote === 'remote') === (posting.remoteFlag === 'remote' || posting.remoteFlag === 'remote_or_hybrid')) c.agree++;
      }
    }
    say("Title/location inference checked against the source's own flag (Ashby `isRemote`, hidden from the inference): of the");
    say('flagged rows, how many the title and location alone say remote or on-site about, and how often that agrees with the');
    say('flag (remote vs not remote; hybrid answers are left out: the flag cannot say hybrid).');
    say();
    say('| part | flagged rows | inferred remote/on-site | agrees with the flag | inferred hybrid |');
    say('|---|---|---|---|---|');
    for (const split of SPLITS) {
      const c = check[split];
      say(`| ${split} | ${c.flagged} | ${c.inferred} (${pct(c.inferred, c.flagged)}) | ${pct(c.agree, c.inferred)} | ${c.hybrid} |`);
    }
    say();
  },
};
