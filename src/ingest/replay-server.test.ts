/** The loopback replay server: real paths, validators, 404s, overrides and a clean close. */
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReplayServer, USAJOBS_REPLAY_PREFIX } from './replay-server.ts';
import type { ReplayServer } from './replay-server.ts';
import { FIXTURES, readFixture } from '../../test/helpers/fixtures.ts';

/** A plain node:http GET (no guard, no decoding): what the server actually put on the wire. */
function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

let replay: ReplayServer;
beforeAll(async () => {
  replay = await startReplayServer({ fixturesDir: FIXTURES });
});
afterAll(async () => {
  await replay.close();
});

describe('replay server', () => {
  it('listens on loopback and hands out base URLs on the real APIs paths', () => {
    expect(replay.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(replay.baseUrls).toEqual({
      ashby: replay.url,
      greenhouse: replay.url,
      lever: replay.url,
      usajobs: `${replay.url}${USAJOBS_REPLAY_PREFIX}`,
      remotive: replay.url,
      himalayas: replay.url,
      arbeitnow: replay.url,
      smartrecruiters: replay.url,
      recruitee: `${replay.url}/recruitee/{company}`,
      workable: replay.url,
      personio: `${replay.url}/personio/{company}`,
      workday: `${replay.url}/workday/{host}`,
      // The agencies have no bundled feed; their base URL is the server's, which answers 404.
      nav: replay.url,
      jobtech: replay.url,
      bundesagentur: replay.url,
      usajobs_api: replay.url,
    });
  });

  it('serves the three job-board feeds on their fixed paths', async () => {
    for (const [path, key] of [['/api/remote-jobs', 'jobs'], ['/jobs/api', 'jobs'], ['/api/job-board-api', 'data']] as const) {
      const res = await get(`${replay.url}${path}`);
      expect(res.status).toBe(200);
      expect(Array.isArray((JSON.parse(res.body.toString("utf8")) as Record<string, unknown>)[key])).toBe(true);
    }
  });

  it('serves each provider decompressed, byte for byte, as JSON', async () => {
    const ashby = await get(`${replay.url}/posting-api/job-board/Synergy%20Pet%20Group?includeCompensation=true`);
    expect(ashby.status).toBe(200);
    expect(ashby.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(ashby.body.toString())).toEqual(readFixture('ashby', 'Synergy Pet Group'));
    const greenhouse = await get(`${replay.url}/v1/boards/brightharbor/jobs?content=true`);
    expect(greenhouse.body.equals(fs.readFileSync(path.join(FIXTURES, 'greenhouse', 'brightharbor.json')))).toBe(true);
    const lever = await get(`${replay.url}/v0/postings/tessellate?mode=json`);
    expect(lever.status).toBe(200);
    const usajobs = await get(`${replay.url}${USAJOBS_REPLAY_PREFIX}/jobs_department_of_education.json`);
    expect((JSON.parse(usajobs.body.toString()) as unknown[]).length).toBe(598);
    expect(replay.requests.map((r) => r.path)).toContain('/posting-api/job-board/Synergy%20Pet%20Group?includeCompensation=true');
  });

  it('sends a strong ETag and Last-Modified, and answers 304 to matching validators only', async () => {
    const url = `${replay.url}/posting-api/job-board/DeepL`;
    const first = await get(url);
    const etag = first.headers['etag']!;
    const lastModified = first.headers['last-modified']!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(new Date(lastModified).getTime()).toBe(Math.floor(fs.statSync(path.join(FIXTURES, 'ashby', 'DeepL.json.gz')).mtimeMs / 1000) * 1000);
    expect((await get(url, { 'if-none-match': etag })).status).toBe(304);
    expect((await get(url, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get(url, { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await get(url, { 'if-modified-since': lastModified })).status).toBe(304);
    expect((await get(url, { 'if-modified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' })).status).toBe(200);
    // If-None-Match wins over If-Modified-Since.
    expect((await get(url, { 'if-none-match': '"other"', 'if-modified-since': lastModified })).status).toBe(200);
  });

  it('answers 404 JSON for unknown boards and paths, and refuses path tricks', async () => {
    for (const p of ['/posting-api/job-board/nope', '/v1/boards/nope/jobs', '/v0/postings/nope', `${USAJOBS_REPLAY_PREFIX}/nope.json`, '/posting-api/job-board/..%2Fmanifest', '/elsewhere']) {
      const res = await get(`${replay.url}${p}`);
      expect(res.status).toBe(404);
      expect(() => JSON.parse(res.body.toString())).not.toThrow();
    }
  });

  it('applies overrides, for a number of requests or until removed', async () => {
    replay.override('/v0/postings/tessellate', { status: 500, body: '<html>oops</html>', headers: { 'content-type': 'text/html' }, times: 1 });
    expect((await get(`${replay.url}/v0/postings/tessellate`)).status).toBe(500);
    expect((await get(`${replay.url}/v0/postings/tessellate`)).status).toBe(200);
    replay.override('/v0/postings/tessellate', { json: [] });
    expect((await get(`${replay.url}/v0/postings/tessellate`)).body.toString()).toBe('[]');
    replay.override('/v0/postings/tessellate', null);
    expect((await get(`${replay.url}/v0/postings/tessellate`)).body.length).toBeGreaterThan(1000);
    replay.override('/cut', { destroySocket: true });
    await expect(get(`${replay.url}/cut`)).rejects.toThrow();
  });

  it('closes promptly with a keep-alive connection open and a delayed answer pending', async () => {
    const other = await startReplayServer({ fixturesDir: FIXTURES });
    other.override('/slow', { status: 200, body: 'late', delayMs: 10_000 });
    const agent = new http.Agent({ keepAlive: true });
    await new Promise<void>((resolve) => http.get(`${other.url}/v0/postings/tessellate`, { agent }, (res) => res.resume().on('end', resolve)));
    const pending = new Promise((resolve) => http.get(`${other.url}/slow`, { agent }).on('error', resolve).on('response', resolve));
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await other.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await pending;
    agent.destroy();
  });
});
