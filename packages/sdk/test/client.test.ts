/**
 * @jobledger/sdk against a real jobledger (the real app over a clone of the imported corpus) listening
 * on loopback; faults (503s, cut bodies) come from a loopback proxy in front of it (loopback.ts).
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/access/api-keys.ts';
import { createUnlimitedKey, useCorpusApp } from '../../../test/helpers/app.ts';
import { handBuiltJob, writeHandBuiltRows } from '../../../test/helpers/ledger-rows.ts';
import { createJobledgerClient, JobledgerError, sync, type Job, type JobledgerClient } from '../src/index.ts';
import { startFaultProxy, type FaultProxy } from './loopback.ts';

describe('@jobledger/sdk on a real jobledger', () => {
  const ctx = useCorpusApp({ key: 'scale' });
  let baseUrl: string;
  let proxy: FaultProxy;
  let unlimited: string;
  let client: JobledgerClient;

  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (ctx.app.server.address() as AddressInfo).port;
    baseUrl = `http://127.0.0.1:${port}`;
    proxy = await startFaultProxy(port);
    unlimited = (await createUnlimitedKey(ctx.t)).secret;
    client = createJobledgerClient({ baseUrl, apiKey: ctx.key.secret });
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('types every operation: get a job by id through the openapi-fetch client', async () => {
    const first = (await client.pages('/v1/jobs', { limit: 1 }).next()).value!;
    const id = first.data[0]!.id;
    const { data, response } = await client.api.GET('/v1/jobs/{id}', { params: { path: { id } } });
    expect(response.status).toBe(200);
    expect(data!.data.id).toBe(id);
    expect(data!.data.title).toBe(first.data[0]!.title);
  });

  it('follows next_cursor to the last page: the same rows in the same order whatever the page size, comma lists sent as the spec reads them', async () => {
    const all: Job[] = [];
    for await (const job of client.rows('/v1/jobs', { status: 'any', limit: 200 })) all.push(job);
    let pages = 0;
    const small: string[] = [];
    for await (const page of client.pages('/v1/jobs', { status: 'any', limit: 97 })) {
      pages++;
      small.push(...page.data.map((j) => j.id));
    }
    expect(all.length).toBeGreaterThan(1000);
    expect(pages).toBe(Math.ceil(all.length / 97));
    expect(small).toEqual(all.map((j) => j.id));
    expect(new Set(small).size).toBe(small.length);

    // An array parameter goes out as one comma list (the server reads the first occurrence only).
    const byProvider = new Map<string, number>();
    for (const job of all) byProvider.set(job.source, (byProvider.get(job.source) ?? 0) + 1);
    const two = [...byProvider.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2).map(([p]) => p) as Array<'greenhouse'>;
    const filtered: string[] = [];
    for await (const job of client.rows('/v1/jobs', { status: 'any', limit: 200, provider: two })) filtered.push(job.id);
    expect(filtered).toEqual(all.filter((j) => two.includes(j.source as 'greenhouse')).map((j) => j.id));
  });

  it('pages the employer directory too', async () => {
    const slugs: string[] = [];
    for await (const company of client.rows('/v1/companies', { limit: 50 })) slugs.push(company.slug!);
    expect(slugs.length).toBeGreaterThan(50);
    expect(new Set(slugs).size).toBe(slugs.length);
  });

  it('retries a 503 and a 429 after their Retry-After (with jitter), and nothing else', async () => {
    const retries: Array<{ status: number; delayMs: number }> = [];
    const viaProxy = createJobledgerClient({ baseUrl: proxy.url, apiKey: ctx.key.secret, retry: { jitterMs: 200, onRetry: (e) => retries.push(e) } });
    proxy.inject('/v1/jobs', { status: 503, headers: { 'retry-after': '1' } }, { status: 429, headers: { 'retry-after': '1' }, body: { error: 'rate_limited', message: 'slow down', docs: 'x' } });
    const before = proxy.hits('/v1/jobs');
    const started = Date.now();
    const page = (await viaProxy.pages('/v1/jobs', { limit: 3 }).next()).value!;
    expect(page.data).toHaveLength(3);
    expect(proxy.hits('/v1/jobs') - before).toBe(3);
    expect(retries.map((r) => r.status)).toEqual([503, 429]);
    for (const r of retries) {
      expect(r.delayMs).toBeGreaterThanOrEqual(1000);
      expect(r.delayMs).toBeLessThanOrEqual(1200);
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);

    // 500 and the real server's 422 are never retried.
    proxy.inject('/v1/jobs', { status: 500, body: { error: 'query_failed', message: 'boom', docs: 'x' } });
    const at500 = proxy.hits('/v1/jobs');
    await expect(viaProxy.pages('/v1/jobs').next()).rejects.toMatchObject({ status: 500, code: 'query_failed' });
    expect(proxy.hits('/v1/jobs') - at500).toBe(1);
    const at422 = proxy.hits('/v1/jobs');
    await expect(viaProxy.pages('/v1/jobs', { cursor: 'not-a-cursor' }).next()).rejects.toMatchObject({ status: 422, code: 'bad_cursor' });
    expect(proxy.hits('/v1/jobs') - at422).toBe(1);
  });

  it('caps attempts: a 503 that never ends is given up after maxAttempts', async () => {
    const viaProxy = createJobledgerClient({ baseUrl: proxy.url, apiKey: ctx.key.secret, retry: { maxAttempts: 3, jitterMs: 10 } });
    proxy.inject('/v1/companies', ...Array.from({ length: 5 }, () => ({ status: 503, headers: { 'retry-after': '0' } })));
    const before = proxy.hits('/v1/companies');
    const error = await viaProxy.pages('/v1/companies').next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JobledgerError);
    expect((error as JobledgerError).status).toBe(503);
    expect(proxy.hits('/v1/companies') - before).toBe(3);
  });

  it("does not wait out a real per-minute 429 longer than maxDelayMs: the server's 429 is returned with its Retry-After", async () => {
    await ctx.t.db
      .insertInto('plans')
      .values({ id: 'sdk-one-per-minute', label: 'one per minute', price_cents: 0, records_per_month: 1000, requests_per_day: 100, requests_per_minute: 1, max_page_size: 200, entitlements: [], purchasable: false })
      .execute();
    const key = await createApiKey(ctx.t.db, { planId: 'sdk-one-per-minute', name: 'sdk 429' });
    const tight = createJobledgerClient({ baseUrl, apiKey: key.secret, retry: { maxDelayMs: 500 } });
    await tight.pages('/v1/jobs', { limit: 1 }).next();
    const error = (await tight.pages('/v1/jobs', { limit: 1 }).next().catch((e: unknown) => e)) as JobledgerError;
    expect(error.status).toBe(429);
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('walks /v1/changes to the end, persisting next_since through the callback; a later run starts where it stopped', async () => {
    const saved: string[] = [];
    let items = 0;
    for await (const item of client.changes({ since: '2000-01-01T00:00:00Z', limit: 1000, saveSince: (s) => void saved.push(s) })) {
      expect(['created', 'updated', 'delisted', 'withdrawn']).toContain(item.change);
      items++;
    }
    expect(items).toBeGreaterThan(1000);
    expect(saved.length).toBe(Math.ceil(items / 1000));
    expect(saved.at(-1)).toMatch(/^.+\|[0-9a-f-]{36}$/);
    // Caught up: the next run reads one empty page and saves nothing new.
    const again: unknown[] = [];
    for await (const item of client.changes({ since: saved.at(-1)!, saveSince: (s) => void saved.push(s) })) again.push(item);
    expect(again).toEqual([]);
  });

  it('sync() keeps a local copy in step: upsert on created and updated, drop on withdrawn', async () => {
    const copy = new Map<string, Job>();
    const local = { upsert: (job: Job) => void copy.set(job.id, job), remove: (id: string) => void copy.delete(id) };
    let since = new Date().toISOString();
    const a = handBuiltJob({ sourcePostingId: 'sdk-sync-a', title: 'Platform Engineer' });
    const b = handBuiltJob({ sourcePostingId: 'sdk-sync-b', title: 'Data Engineer' });
    await writeHandBuiltRows(ctx.t.db, [{ job: a }, { job: b }], { board: 'sdk-sync' });
    const first = await sync(client, local, { since, saveSince: (s) => void (since = s) });
    expect(first).toMatchObject({ upserted: 2, removed: 0, since });
    expect([...copy.values()].map((j) => j.title).sort()).toEqual(['Data Engineer', 'Platform Engineer']);
    const idOf = (title: string) => [...copy.values()].find((j) => j.title === title)!.id;
    const bId = idOf('Data Engineer');

    // A's title changes; B is removed by the quality gate (a served row no longer trusted: withdrawn).
    await writeHandBuiltRows(
      ctx.t.db,
      [{ job: { ...a, title: 'Senior Platform Engineer' } }, { job: b, verdict: { verdict: 'quality_removed', ruleId: 'apply_url.missing' } }],
      { board: 'sdk-sync' },
    );
    const second = await sync(client, local, { since, saveSince: (s) => void (since = s) });
    expect(second).toMatchObject({ upserted: 1, removed: 1 });
    expect([...copy.values()].map((j) => j.title)).toEqual(['Senior Platform Engineer']);
    expect(copy.has(bId)).toBe(false);
    expect(await sync(client, local, { since })).toMatchObject({ upserted: 0, removed: 0, since });
  });

  it('reads the whole export in id order, and stops on the quota line with the after to resume from', async () => {
    const full: string[] = [];
    const everything = createJobledgerClient({ baseUrl, apiKey: unlimited }).exportJobs();
    for await (const job of everything) full.push(job.id);
    expect(everything.result).toEqual({ status: 'complete', after: full.at(-1), count: full.length, requests: 1 });
    expect([...full].sort()).toEqual(full);

    await ctx.t.db
      .insertInto('plans')
      .values({ id: 'sdk-small-export', label: 'small export', price_cents: 0, records_per_month: 40, requests_per_day: 100, requests_per_minute: 100, max_page_size: 200, entitlements: ['bulk_export'], purchasable: false })
      .execute();
    const small = await createApiKey(ctx.t.db, { planId: 'sdk-small-export', name: 'sdk export quota' });
    const cut = createJobledgerClient({ baseUrl, apiKey: small.secret }).exportJobs();
    const firstPart: string[] = [];
    for await (const job of cut) firstPart.push(job.id);
    expect(firstPart).toEqual(full.slice(0, 40));
    expect(cut.result).toMatchObject({ status: 'record_quota_exhausted', after: full[39], count: 40, requests: 1 });
    expect(cut.result!.message).toContain('record');

    const rest: string[] = [];
    const resumed = createJobledgerClient({ baseUrl, apiKey: unlimited }).exportJobs({ after: cut.result!.after! });
    for await (const job of resumed) rest.push(job.id);
    expect([...firstPart, ...rest]).toEqual(full);
  });

  it('resumes an export cut in transit with after, without losing or repeating a row', async () => {
    const full: string[] = [];
    for await (const job of createJobledgerClient({ baseUrl, apiKey: unlimited }).exportJobs({ query: { country: ['US'] } })) full.push(job.id);
    expect(full.length).toBeGreaterThan(100);
    // fetch asks for br/gzip, so the bytes cut are compressed ones: the whole export is under 200 KB coded.
    proxy.inject('/v1/export', { cutAfterBytes: 30_000 });
    const reader = createJobledgerClient({ baseUrl: proxy.url, apiKey: unlimited }).exportJobs({ query: { country: ['US'] }, resumeDelayMs: 10 });
    const got: string[] = [];
    for await (const job of reader) got.push(job.id);
    expect(got).toEqual(full);
    expect(reader.result).toMatchObject({ status: 'complete', count: full.length, requests: 2 });
  });

  it('surfaces a refused export as a JobledgerError naming the missing entitlement', async () => {
    const explore = await createApiKey(ctx.t.db, { planId: 'explore', name: 'sdk explore' });
    const reader = createJobledgerClient({ baseUrl, apiKey: explore.secret }).exportJobs();
    const error = (await reader[Symbol.asyncIterator]().next().catch((e: unknown) => e)) as JobledgerError;
    expect(error).toBeInstanceOf(JobledgerError);
    expect(error.status).toBe(403);
    expect(error.requiredFeature).toBe('bulk_export');
  });
});
