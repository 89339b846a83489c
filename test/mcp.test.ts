/**
 * The MCP server (issue 19, "An MCP server") driven by the official SDK's own client, over both
 * transports: Streamable HTTP at /mcp on the real app listening on loopback, and stdio from a real
 * `jobledger mcp` process over the same test ledger. A tool call returns the rows its REST twin
 * returns and costs the same records and requests (read back from /v1/me's budget headers).
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedDirectoryQuery } from '../src/http/schemas/companies.ts';
import { keyedJobsQuery } from '../src/http/schemas/jobs.ts';
import { changesQuery } from '../src/http/schemas/sync.ts';
import { bearer, TEST_DOCS_URL, useCorpusApp } from './helpers/app.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

type Rows = { data: Array<{ id: string; title: string }>; has_more: boolean; next_cursor: string | null };

describe('MCP server', () => {
  const ctx = useCorpusApp({ key: 'scale' });
  let baseUrl: string;

  beforeAll(async () => {
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  });

  /** Records used and requests today of the block's key, from GET /v1/me (costs no records). */
  async function budget(): Promise<{ records: number; requests: number }> {
    const res = await fetch(`${baseUrl}/v1/me`, { headers: bearer(ctx.key) });
    const body = (await res.json()) as { usage_today: number };
    return { records: Number(res.headers.get('x-ratelimit-records-used')), requests: body.usage_today };
  }

  async function rest(path: string): Promise<unknown> {
    const res = await fetch(`${baseUrl}${path}`, { headers: bearer(ctx.key) });
    expect(res.status, path).toBe(200);
    return res.json();
  }

  /**
   * Same records and requests for the tool call as for its REST twin, and the same answer. `requests`
   * false: the tool runs in another process whose request counters are its own (records are in the ledger).
   */
  async function sameAsRest(client: Client, tool: string, args: Record<string, unknown>, path: string, requests = true): Promise<CallToolResult> {
    const b0 = await budget();
    const viaRest = await rest(path);
    const b1 = await budget();
    const result = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const b2 = await budget();
    expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
    expect(result.structuredContent).toEqual(viaRest);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(viaRest);
    expect(b2.records - b1.records, `${tool}: records`).toBe(b1.records - b0.records);
    if (requests) expect(b2.requests - b1.requests, `${tool}: requests`).toBe(b1.requests - b0.requests);
    return result;
  }

  describe('over Streamable HTTP (/mcp, the key as bearer)', () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'jobledger-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: bearer(ctx.key) } }));
    });
    afterAll(async () => {
      await client?.close();
    });

    it('lists the six tools, their input schemas made from the REST parameter tables', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['search_jobs', 'get_job', 'list_companies', 'get_company', 'list_facets', 'recent_changes']);
      const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema;
      expect(Object.keys(schema('search_jobs').properties!)).toEqual(Object.keys(keyedJobsQuery.params));
      expect(schema('search_jobs').properties!.country).toEqual(JSON.parse(JSON.stringify(keyedJobsQuery.schema.properties.country)));
      expect(Object.keys(schema('list_companies').properties!)).toEqual(Object.keys(keyedDirectoryQuery.params));
      expect(Object.keys(schema('recent_changes').properties!)).toEqual(Object.keys(changesQuery.params));
      expect(schema('recent_changes').required).toEqual(['since']);
      expect(schema('get_job')).toMatchObject({ required: ['id'], properties: { id: { type: 'string' }, include_closed: { type: 'boolean' } } });
      expect(schema('get_company')).toMatchObject({ required: ['slug'] });
    });

    it('search_jobs returns the rows GET /v1/jobs returns and meters them the same (one record per row, one request)', async () => {
      const result = await sameAsRest(client, 'search_jobs', { remote: ['remote', 'hybrid'], limit: 7 }, '/v1/jobs?remote=remote,hybrid&limit=7');
      const page = result.structuredContent as Rows;
      expect(page.data).toHaveLength(7);
      // The next page through the cursor, as over REST.
      const next = (await client.callTool({ name: 'search_jobs', arguments: { remote: ['remote', 'hybrid'], limit: 7, cursor: page.next_cursor } })) as CallToolResult;
      const ids = (next.structuredContent as Rows).data.map((j) => j.id);
      expect(ids).toHaveLength(7);
      expect(ids.filter((id) => page.data.some((j) => j.id === id))).toEqual([]);
    });

    it('get_job, list_companies, get_company, list_facets and recent_changes answer and cost as their twins', async () => {
      const job = ((await rest('/v1/jobs?limit=1')) as Rows).data[0]!;
      await sameAsRest(client, 'get_job', { id: job.id }, `/v1/jobs/${job.id}`);
      const companies = (await sameAsRest(client, 'list_companies', { limit: 5, country: ['US'] }, '/v1/companies?limit=5&country=US')).structuredContent as { data: Array<{ slug: string }> };
      expect(companies.data).toHaveLength(5);
      await sameAsRest(client, 'get_company', { slug: companies.data[0]!.slug }, `/v1/companies/${companies.data[0]!.slug}`);
      const facets = (await sameAsRest(client, 'list_facets', {}, '/v1/meta/facets')).structuredContent as Record<string, unknown>;
      expect(Object.keys(facets).length).toBeGreaterThan(3);
      const changes = (await sameAsRest(client, 'recent_changes', { since: '2000-01-01T00:00:00Z', limit: 20 }, '/v1/changes?since=2000-01-01T00:00:00Z&limit=20')).structuredContent as { count: number };
      expect(changes.count).toBe(20);
    });

    it("answers a refused call as a tool error carrying the REST error body, and costs nothing", async () => {
      const b0 = await budget();
      const missing = (await client.callTool({ name: 'get_job', arguments: { id: '00000000-0000-4000-8000-000000000000' } })) as CallToolResult;
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ status: 404, error: 'not_found', docs: `${TEST_DOCS_URL}#not_found` });
      const bad = (await client.callTool({ name: 'search_jobs', arguments: { category: ['astrology'] } })) as CallToolResult;
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toMatchObject({ status: 422, error: 'bad_category' });
      expect((await budget()).records).toBe(b0.records);
    });

    it('refuses a missing or unknown key with the API\'s 401, and a GET with 405', async () => {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      for (const authorization of [undefined, 'Bearer jl_notakey_000000000000000000000000']) {
        const res = await fetch(`${baseUrl}/mcp`, { method: 'POST', headers: { ...headers, ...(authorization ? { authorization } : {}) }, body: JSON.stringify(init) });
        expect(res.status).toBe(401);
        expect(await res.json()).toMatchObject({ error: 'unauthorized' });
      }
      const get = await fetch(`${baseUrl}/mcp`, { headers: bearer(ctx.key) });
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('POST');
    });
  });

  describe('over stdio (`jobledger mcp`)', () => {
    async function stdioClient(args: string[], apiKey: string): Promise<{ client: Client; stderr: () => string }> {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['src/main/cli.ts', 'mcp', ...args],
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: ctx.t.url, JOBLEDGER_API_KEY: apiKey, LOG_LEVEL: 'warn' },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'jobledger-test', version: '1.0.0' });
      await client.connect(transport);
      return { client, stderr: () => stderr };
    }

    it('serves the ledger in process: search_jobs returns the REST rows and meters the same', async () => {
      const { client, stderr } = await stdioClient([], ctx.key.secret);
      try {
        expect((await client.listTools()).tools).toHaveLength(6);
        const page = (await sameAsRest(client, 'search_jobs', { category: ['engineering'], limit: 5 }, '/v1/jobs?category=engineering&limit=5', false)).structuredContent as Rows;
        expect(page.data).toHaveLength(5);
      } finally {
        await client.close();
      }
      expect(stderr()).not.toContain(ctx.key.secret);
    });

    it('calls a running jobledger with --url', async () => {
      const { client } = await stdioClient(['--url', baseUrl], ctx.key.secret);
      try {
        await sameAsRest(client, 'get_job', { id: ((await rest('/v1/jobs?limit=1')) as Rows).data[0]!.id }, `/v1/jobs/${((await rest('/v1/jobs?limit=1')) as Rows).data[0]!.id}`);
      } finally {
        await client.close();
      }
    });

    it('refuses to start with a key the API refuses, saying so on stderr', async () => {
      // Asynchronously: the server answering the check runs in this process.
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['src/main/cli.ts', 'mcp', '--url', baseUrl], { cwd: ROOT, env: { PATH: process.env.PATH, JOBLEDGER_API_KEY: 'jl_wrong' } });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('the API key was refused (401 unauthorized');
      expect(run.stdout).toBe('');
    });
  });
});
