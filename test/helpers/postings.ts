/**
 * Real recorded postings (fixtures/ashby) turned into ledger postings through the production mapping,
 * enrichment and quality gate, without HTTP: for tests that drive the ledger's write side directly.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { loadFxRates } from '../../src/enrich/fx.ts';
import { enrichPosting } from '../../src/enrich/enrich.ts';
import { FIXTURES_DIR } from '../../src/ingest/bundled-feeds.ts';
import { mapAshbyJob } from '../../src/ingest/connectors/ashby.ts';
import { judgePosting } from '../../src/ingest/quality-gate.ts';
import type { LedgerPosting } from '../../src/store/ledger.ts';

/** The recorded payload of an Ashby board, parsed. */
export function ashbyPayload(board: string): { jobs: Record<string, unknown>[]; apiVersion?: string } {
  return JSON.parse(zlib.gunzipSync(readFileSync(path.join(FIXTURES_DIR, 'ashby', `${board}.json.gz`))).toString('utf8'));
}

/** Every listed posting of a recorded Ashby board, enriched and judged as the pipeline would. */
export function ashbyLedgerPostings(board: string, now = new Date()): LedgerPosting[] {
  const target = { id: `ashby:${board}`, providerId: 'ashby' as const, board, companyName: board };
  const fx = loadFxRates();
  const out: LedgerPosting[] = [];
  for (const item of ashbyPayload(board).jobs) {
    const posting = mapAshbyJob(item, target);
    if (!posting) continue;
    const job = enrichPosting(posting, { id: 'ashby', sourceType: 'ats', providerType: 'employer_ats' }, fx);
    out.push({ job, verdict: judgePosting(job, { providerId: 'ashby', redistributable: true, discoveryOnly: false, board, now }) });
  }
  return out;
}
