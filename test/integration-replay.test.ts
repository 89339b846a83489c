/**
 * The original service's integrations, replayed against a running jobledger (issue 19, compatibility):
 * the app listens on loopback and each integration's call sequence goes over real HTTP with `fetch`,
 * as the integration would send it. The sequences are the calls their nodes, modules, actions and
 * actors make (issue 19: search with filters, get by id, closed search, changes polling with a reused
 * cursor, company paging by offset), with the authorization header each one sends; the MCP server's
 * own client is tested in test/mcp.test.ts. A change of base URL must be the only change they need.
 */
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../src/access/api-keys.ts';
import { createKey, useCorpusApp } from './helpers/app.ts';

const ctx = useCorpusApp({ key: false });
let baseUrl: string;
let key: CreatedKey;

beforeAll(async () => {
  key = await createKey(ctx.t, 'scale');
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
});

type Job = { id: string; slug: string; title: string; country?: string; remote?: string; status: string; closed_reason: string | null; company_domain?: string; description?: string };
type Page = { data: Job[]; has_more: boolean; next_cursor: string | null };

/** One integration: how it authenticates, and whether it revalidates with If-None-Match. */
interface Integration {
  name: string;
  /** The Authorization header it sends (`null`: keyless, the /public mirror). */
  authorization: (secret: string) => string | null;
  /** Sends the ETag of its last poll back in If-None-Match. */
  revalidates: boolean;
}

const INTEGRATIONS: Integration[] = [
  { name: 'n8n (HTTP credential, Bearer)', authorization: (s) => `Bearer ${s}`, revalidates: false },
  { name: 'Make (API key field, lower-case bearer)', authorization: (s) => `bearer ${s}`, revalidates: false },
  { name: 'Zapier (polling trigger, Bearer)', authorization: (s) => `Bearer ${s}`, revalidates: true },
  { name: 'Activepieces (bare key)', authorization: (s) => s, revalidates: false },
  { name: 'Apify actor (keyed)', authorization: (s) => `Bearer ${s}`, revalidates: true },
];

async function call(integration: Integration, path: string, extra: Record<string, string> = {}): Promise<Response> {
  const authorization = integration.authorization(key.secret);
  return fetch(`${baseUrl}${path}`, { headers: { accept: 'application/json', 'user-agent': integration.name, ...(authorization ? { authorization } : {}), ...extra } });
}

async function json<T>(integration: Integration, path: string): Promise<T> {
  const res = await call(integration, path);
  expect(res.status, `${integration.name}: GET ${path}`).toBe(200);
  return (await res.json()) as T;
}

describe.each(INTEGRATIONS)('$name', (integration) => {
  it('searches with filters and follows next_cursor', async () => {
    const first = await json<Page>(integration, '/v1/jobs?country=US&limit=5');
    expect(first.data.length).toBe(5);
    expect(first.data.every((j) => j.country === 'US' && j.status === 'live')).toBe(true);
    expect(first.has_more).toBe(true);
    const second = await json<Page>(integration, `/v1/jobs?country=US&limit=5&cursor=${encodeURIComponent(first.next_cursor!)}`);
    expect(second.data.length).toBeGreaterThan(0);
    expect(second.data.map((j) => j.id)).not.toContain(first.data[0]!.id);
    // A keyword search with a remote filter, as their "search jobs" forms send it.
    const remote = await json<Page>(integration, '/v1/jobs?q=engineer&remote=remote&limit=5');
    expect(remote.data.every((j) => j.remote === 'remote')).toBe(true);
  });

  it('gets a row by id and by slug, with description at the top level', async () => {
    const [row] = (await json<Page>(integration, '/v1/jobs?limit=1')).data;
    for (const idOrSlug of [row!.id, row!.slug]) {
      const body = await json<{ data: Job; description: string | null }>(integration, `/v1/jobs/${idOrSlug}`);
      expect(body.data.id).toBe(row!.id);
      expect(body.description).toBe(body.data.description ?? null);
    }
  });

  it('searches closed rows with the original closed_reason values', async () => {
    const closed = await json<Page>(integration, '/v1/jobs/closed?closed_reason=deadline_passed&limit=5');
    expect(closed.data.length).toBeGreaterThan(0);
    expect(closed.data.every((j) => j.status === 'closed' && j.closed_reason === 'expired_upstream')).toBe(true);
    const employer = await call(integration, '/v1/jobs/closed?closed_reason=employer_closed&limit=5');
    expect(employer.status).toBe(200);
  });

  it('polls the change feed to its end, then polls again with the reused cursor', async () => {
    type Changes = { count: number; data: Array<{ change: string; id: string }>; next_since: string };
    let since = '2000-01-01T00:00:00Z';
    let pages = 0;
    for (;;) {
      const page = await json<Changes>(integration, `/v1/changes?since=${encodeURIComponent(since)}&limit=5000`);
      pages++;
      if (page.count === 0) {
        expect(page.next_since).toBe(since);
        break;
      }
      since = page.next_since;
      expect(pages).toBeLessThan(50);
    }
    const path = `/v1/changes?since=${encodeURIComponent(since)}&limit=5000`;
    const again = await call(integration, path);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Changes).count).toBe(0);
    if (integration.revalidates) {
      const polled = await call(integration, path, { 'if-none-match': again.headers.get('etag')! });
      expect(polled.status).toBe(304);
      expect(await polled.text()).toBe('');
    }
  });

  it('pages the company directory by offset', async () => {
    type Companies = { data: Array<{ slug: string; domain?: string | null }>; has_more: boolean; limit: number; offset: number };
    const one = await json<Companies>(integration, '/v1/companies?limit=5&offset=0');
    const two = await json<Companies>(integration, '/v1/companies?limit=5&offset=5');
    const both = await json<Companies>(integration, '/v1/companies?limit=10&offset=0');
    expect(one.offset).toBe(0);
    expect(two.offset).toBe(5);
    expect([...one.data, ...two.data].map((c) => c.slug)).toEqual(both.data.map((c) => c.slug));
    const slug = one.data[0]!.slug;
    expect((await call(integration, `/v1/companies/${slug}`)).status).toBe(200);
  });
});

describe('Apify actor (keyless, the /public mirror)', () => {
  const keyless: Integration = { name: 'Apify actor (keyless)', authorization: () => null, revalidates: true };

  it('searches, gets by slug, reads the first company page (deeper is 402), and revalidates with ETag', async () => {
    const page = await json<Page>(keyless, '/public/jobs?country=DE&limit=5');
    expect(page.data.every((j) => j.country === 'DE')).toBe(true);
    const single = await json<{ data: Job; description: string | null }>(keyless, `/public/jobs/${page.data[0]!.slug}`);
    expect(single.data.id).toBe(page.data[0]!.id);
    // The keyless directory is its first page only; paging deeper asks for a key (spec: keyless endpoints).
    const companies = await json<{ data: unknown[]; offset: number }>(keyless, '/public/companies?limit=5');
    expect(companies.data.length).toBe(5);
    expect((await call(keyless, '/public/companies?limit=5&offset=5')).status).toBe(402);
    const first = await call(keyless, '/public/jobs?country=DE&limit=5');
    const again = await call(keyless, '/public/jobs?country=DE&limit=5', { 'if-none-match': first.headers.get('etag')! });
    expect(again.status).toBe(304);
  });
});
