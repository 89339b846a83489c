/**
 * Every operation of the OpenAPI document carries a real example (issue 19): the answer the service
 * gave, over the demo's recorded boards (fixtures/manifest.json, imported through the real pipeline; the
 * tests' hand-written boards are left out, so no invented employer reaches /docs), to one stated
 * request (src/http/openapi-examples.ts).
 *
 * Run normally, the test sends each request again to the app over a fresh import of the corpus and
 * requires the same status and the same body, ids, slugs, cursors and instants aside (they change with
 * every import). With `JOBLEDGER_RECORD_OPENAPI_EXAMPLES=1` it records the answers into
 * src/http/openapi-examples.json instead (then run it again without the variable).
 */
import { writeFileSync } from 'node:fs';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_FILE, recordedExamples, type RecordedExample } from '../src/http/openapi-examples.ts';
import { allPages, bearer, useTestApp } from './helpers/app.ts';
import { replayPipeline } from './helpers/corpus.ts';
import { DEMO_MANIFEST } from './helpers/fixtures.ts';

const RECORD = process.env.JOBLEDGER_RECORD_OPENAPI_EXAMPLES === '1';

interface Exchange {
  method: 'GET' | 'POST';
  url: string;
  keyed?: boolean;
  payload?: unknown;
  headers?: Record<string, string>;
}

/** The row and the employer the single-row examples show: small ones, chosen the same way in every import. */
interface Picks {
  jobSlug: string;
  companySlug: string;
  keyId: string;
}

const SINCE = '2000-01-01T00:00:00.000Z';
const MCP_INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'docs-example', version: '1.0.0' } } };

/** The request each operation's example answers. */
const EXCHANGES: Record<string, (p: Picks) => Exchange> = {
  health: () => ({ method: 'GET', url: '/health' }),
  ready: () => ({ method: 'GET', url: '/health/ready' }),
  getStatus: () => ({ method: 'GET', url: '/public/status' }),
  getAiPrompt: () => ({ method: 'GET', url: '/public/ai-prompt' }),
  listJobs: () => ({ method: 'GET', url: '/v1/jobs?limit=1', keyed: true }),
  getJob: (p) => ({ method: 'GET', url: `/v1/jobs/${p.jobSlug}`, keyed: true }),
  getMe: () => ({ method: 'GET', url: '/v1/me', keyed: true }),
  listCompanies: () => ({ method: 'GET', url: '/v1/companies?limit=1', keyed: true }),
  getCompany: (p) => ({ method: 'GET', url: `/v1/companies/${p.companySlug}`, keyed: true }),
  exportJobs: (p) => ({ method: 'GET', url: `/v1/export?company=${p.companySlug}`, keyed: true }),
  getFreshness: () => ({ method: 'GET', url: '/v1/meta/freshness', keyed: true }),
  listChanges: () => ({ method: 'GET', url: `/v1/changes?since=${SINCE}&limit=1`, keyed: true }),
  listExpiredJobs: () => ({ method: 'GET', url: `/v1/jobs/expired?since=${SINCE}&limit=1`, keyed: true }),
  listClosedJobs: () => ({ method: 'GET', url: '/v1/jobs/closed?limit=1', keyed: true }),
  getFacets: () => ({ method: 'GET', url: '/v1/meta/facets', keyed: true }),
  getProviders: () => ({ method: 'GET', url: '/v1/meta/providers', keyed: true }),
  listPublicJobs: () => ({ method: 'GET', url: '/public/jobs?limit=1' }),
  getPublicJob: (p) => ({ method: 'GET', url: `/public/jobs/${p.jobSlug}` }),
  listPlans: () => ({ method: 'GET', url: '/public/plans' }),
  listPublicCompanies: () => ({ method: 'GET', url: '/public/companies?limit=1' }),
  getPublicCompany: (p) => ({ method: 'GET', url: `/public/companies/${p.companySlug}` }),
  getPublicFreshness: () => ({ method: 'GET', url: '/public/freshness' }),
  getCoverage: () => ({ method: 'GET', url: '/public/coverage' }),
  getCoverageCountries: () => ({ method: 'GET', url: '/public/coverage/countries' }),
  getCoverageEmployers: () => ({ method: 'GET', url: '/public/coverage/employers' }),
  getStats: () => ({ method: 'GET', url: '/public/stats' }),
  getPublicFacets: () => ({ method: 'GET', url: '/public/facets' }),
  getPublicProviders: () => ({ method: 'GET', url: '/public/providers' }),
  // No payment provider and no session in the demo: the refusals are what it serves.
  startCheckout: (p) => ({ method: 'POST', url: '/public/checkout', payload: { key_id: p.keyId, plan: 'growth' } }),
  checkoutWebhook: () => ({ method: 'POST', url: '/public/checkout/webhook', payload: { type: 'checkout.session.completed' } }),
  mcp: () => ({ method: 'POST', url: '/mcp', keyed: true, payload: MCP_INITIALIZE, headers: { accept: 'application/json, text/event-stream' } }),
};

/** The document's own operations: their example is the document itself, where it is served. */
const SELF: Record<string, string> = {
  getOpenApiJson: '/v1/openapi.json',
  getOpenApiYaml: '/v1/openapi.yaml',
  getPublicOpenApiJson: '/public/openapi.json',
  getPublicOpenApiYaml: '/public/openapi.yaml',
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const INSTANT = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g;
const DAY = /\b\d{4}-\d{2}-\d{2}\b/g;
const SLUG_ID = /-[0-9a-f]{8}\b/g;
/** Values that change with every import or every call: cursors, the key's own prefix, ages. */
const VOLATILE_KEYS = new Set(['next_cursor', 'next_since', 'key_prefix', 'age_seconds', 'first_seen_lag_hours', 'retry_after', 'time', 'created']);
/** The same keys inside a text body (the export's NDJSON lines): `"key":value`. */
const VOLATILE_IN_TEXT = new RegExp(`"(${[...VOLATILE_KEYS].join('|')})":("[^"]*"|[^,}\\]]+)`, 'g');

/** A body with what changes between imports replaced by placeholders. */
function stable(value: unknown, key?: string): unknown {
  if (key !== undefined && VOLATILE_KEYS.has(key) && value !== null) return `<${key}>`;
  if (typeof value === 'string') return value.replace(VOLATILE_IN_TEXT, '"$1":"<$1>"').replace(UUID, '<uuid>').replace(INSTANT, '<instant>').replace(DAY, '<day>').replace(SLUG_ID, '-<id>');
  if (Array.isArray(value)) return value.map((v) => stable(v));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stable(v, k)]));
  return value;
}

function bodyOf(res: LightMyRequestResponse): { mediaType: string; value: unknown } {
  const mediaType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
  return { mediaType, value: mediaType === 'application/json' ? res.json() : res.body };
}

describe('the examples of the OpenAPI document', () => {
  const ctx = useTestApp();

  beforeAll(async () => {
    const pipeline = await replayPipeline(ctx.t.db);
    try {
      const demo = new Set(DEMO_MANIFEST.map((e) => `${e.provider}:${e.board}`));
      const reports = await pipeline.crawl(pipeline.targets.filter((t) => demo.has(`${t.provider_id}:${t.board}`)));
      expect(reports.filter((r) => r.outcome === 'failed')).toEqual([]);
    } finally {
      await pipeline.close();
    }
  }, 300_000);

  async function send(exchange: Exchange): Promise<LightMyRequestResponse> {
    const headers = { ...(exchange.keyed ? bearer(ctx.key) : {}), ...exchange.headers };
    const options: InjectOptions = { method: exchange.method, url: exchange.url, headers };
    if (exchange.payload !== undefined) Object.assign(options, { payload: JSON.stringify(exchange.payload), headers: { ...headers, 'content-type': 'application/json' } });
    return ctx.app.inject(options);
  }

  /** Every item of a feed, from `url` (its first page) on. */
  async function feed(url: string): Promise<unknown[]> {
    const items: unknown[] = [];
    for (let next = url; ; ) {
      const page = (await ctx.app.inject({ method: 'GET', url: next, headers: bearer(ctx.key) })).json() as { data: unknown[]; next_since: string };
      if (page.data.length === 0) return items;
      items.push(...page.data);
      next = `${url.split('?')[0]}?since=${encodeURIComponent(page.next_since)}&limit=200`;
    }
  }

  /** The row with the shortest description among the first keyless page, and an employer with one role. */
  async function picks(): Promise<Picks> {
    const jobs = (await ctx.app.inject({ method: 'GET', url: '/public/jobs?limit=50&include_description=true' })).json() as { data: Array<{ slug: string; description?: string }> };
    const job = jobs.data.filter((j) => j.description).sort((a, b) => a.description!.length - b.description!.length)[0]!;
    // The directory is ordered by open roles, most first: its last employer has the fewest (the export's example).
    const companies = await allPages<{ slug: string; open_roles?: number }>((url) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) }), '/v1/companies?limit=200');
    const company = companies.filter((c) => (c.open_roles ?? 0) > 0).at(-1)!;
    return { jobSlug: job.slug, companySlug: company.slug, keyId: ctx.key.id };
  }

  it('has one on every operation, recorded from the demo ledger and still what it serves', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, { operationId: string }>> };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(operations.filter((id) => !EXCHANGES[id] && !SELF[id])).toEqual([]);
    const chosen = await picks();
    const recorded = recordedExamples();
    const fresh: Record<string, RecordedExample> = {};
    for (const id of operations) {
      if (SELF[id]) {
        fresh[id] = { request: `GET ${SELF[id]}`, status: '200', mediaType: SELF[id]!.endsWith('.json') ? 'application/json' : 'application/yaml', externalValue: SELF[id] };
        continue;
      }
      const exchange = EXCHANGES[id]!(chosen);
      const res = await send(exchange);
      fresh[id] = { request: `${exchange.method} ${exchange.url}`, ...(exchange.payload === undefined ? {} : { payload: exchange.payload }), status: String(res.statusCode), ...bodyOf(res) };
    }
    /** Operations whose order follows the import's commits: every item they serve, to find the recorded ones in. */
    const IMPORT_ORDERED: Record<string, () => Promise<unknown[]>> = {
      listChanges: () => feed(`/v1/changes?since=${SINCE}&limit=200`),
      listExpiredJobs: () => feed(`/v1/jobs/expired?since=${SINCE}&limit=200`),
      listClosedJobs: () => allPages((url) => ctx.app.inject({ method: 'GET', url, headers: bearer(ctx.key) }), '/v1/jobs/closed?limit=200'),
    };
    if (RECORD) {
      writeFileSync(EXAMPLES_FILE, `${JSON.stringify(fresh, null, 2)}\n`);
      return;
    }
    for (const id of operations) {
      const was = recorded[id];
      expect(was, `${id} has no recorded example: record them (see this file's header)`).toBeDefined();
      const now = fresh[id]!;
      expect(stable(was!.request), id).toBe(stable(now.request));
      expect({ status: was!.status, mediaType: was!.mediaType }, id).toEqual({ status: now.status, mediaType: now.mediaType });
      const all = IMPORT_ORDERED[id];
      if (all) {
        // Ordered by when the import committed a row, and the import commits boards concurrently: the
        // recorded items are items this import serves, not necessarily its first ones.
        const everything = stable(await all());
        for (const item of (was!.value as { data: unknown[] }).data) expect(everything, id).toContainEqual(stable(item));
        continue;
      }
      expect(stable(was!.value), id).toEqual(stable(now.value));
    }
  }, 120_000);

  it.skipIf(RECORD)('puts each example in the document, on the response it was answered with', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/public/openapi.json' })).json() as {
      paths: Record<string, Record<string, { operationId: string; description?: string; responses: Record<string, { content?: Record<string, { examples?: Record<string, { value?: unknown; externalValue?: string }> }> }> }>>;
    };
    const recorded = recordedExamples();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const op of Object.values(item)) {
        expect(op.description, `${path} has a description`).toBeTruthy();
        const example = recorded[op.operationId]!;
        const examples = op.responses[example.status]?.content?.[example.mediaType]?.examples;
        const where = `${op.operationId}: example on ${example.status} ${example.mediaType}`;
        if (example.mediaType === 'application/x-ndjson') {
          // One example per line of the body.
          const lines = String(example.value).trim().split('\n').map((line) => JSON.parse(line) as unknown);
          expect(Object.values(examples ?? {}).map((e) => e.value), where).toEqual(lines);
          continue;
        }
        const demo = examples?.demo;
        expect(demo, where).toBeDefined();
        if (example.externalValue) expect(demo!.externalValue).toBe(path);
        else expect(demo!.value).toEqual(example.value);
      }
    }
  });
});
