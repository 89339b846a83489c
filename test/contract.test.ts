/**
 * The machine contract (spec: Versioning; GET /v1/openapi.json and .yaml, mirrored under /public):
 * it lints clean under Redocly CLI's recommended rules, documents exactly the registered routes, and
 * the response validator every HTTP test runs through can tell a conforming response from a broken one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { buildTestApp, useTestApp } from './helpers/app.ts';
import { Contract, type OpenApiDocument } from './helpers/contract.ts';

const require = createRequire(import.meta.url);
const REDOCLY = require.resolve('@redocly/cli/bin/cli.js');
const ROOT = path.resolve(import.meta.dirname, '..');

type Operation = { operationId?: string; security?: unknown[]; parameters?: Array<{ name: string; in: string }>; responses: Record<string, { content?: Record<string, { schema?: { required?: string[] } }> }> };
type Doc = OpenApiDocument & { openapi: string; servers: Array<{ url: string; description?: string }>; info: { version: string }; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

describe('the OpenAPI contract', () => {
  const ctx = useTestApp({ key: false });
  let doc: Doc;
  let dir: string;

  beforeAll(async () => {
    doc = (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as Doc;
    // The fixed path `npm run lint:openapi` lints at, which .redocly.lint-ignore.yaml names.
    dir = path.join(ROOT, 'node_modules', '.cache', 'openapi-lint');
    mkdirSync(dir, { recursive: true });
  });

  function lint(file: string): { errors: number; warnings: number; output: string } {
    const run = spawnSync(process.execPath, [REDOCLY, 'lint', file, '--format=json', `--config=${path.join(ROOT, 'redocly.yaml')}`], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    const start = run.stdout.indexOf('{');
    const report = JSON.parse(run.stdout.slice(start)) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; severity: string; message: string }> };
    const output = report.problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message}`).join('\n');
    return { errors: report.totals.errors, warnings: report.totals.warnings, output };
  }

  it('lints with zero problems under Redocly CLI (recommended-strict), as JSON and as YAML', async () => {
    const json = path.join(dir, 'openapi.json');
    writeFileSync(json, (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.json' })).body);
    const yaml = path.join(dir, 'openapi.yaml');
    writeFileSync(yaml, (await ctx.app.inject({ method: 'GET', url: '/v1/openapi.yaml' })).body);
    for (const file of [json, yaml]) {
      const result = lint(file);
      expect(result.errors + result.warnings, result.output).toBe(0);
    }
  }, 300_000);

  it('is OpenAPI 3.1 with a date as info.version and the bearer security scheme, served identically on four paths', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(doc.info.version))).toBe(false);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const pub = await ctx.app.inject({ method: 'GET', url: '/public/openapi.json' });
    expect(pub.json()).toEqual(doc);
    expect(pub.headers['cache-control']).toBe('public, max-age=3600');
    expect(pub.headers['access-control-allow-origin']).toBe('*');
    for (const url of ['/v1/openapi.yaml', '/public/openapi.yaml']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
      expect(parseYaml(res.body)).toEqual(doc);
    }
  });

  it('names the server absolutely from JOBLEDGER_SITE_URL when it is set, relatively (/) when not', async () => {
    expect(doc.servers).toEqual([{ url: '/', description: 'This server' }]);
    const sited = await buildTestApp(ctx.t, { publicUrl: 'https://jobs.example.org/' });
    try {
      const served = (await sited.inject({ method: 'GET', url: '/public/openapi.json' })).json() as Doc;
      expect(served.servers).toEqual([{ url: 'https://jobs.example.org', description: 'This service (JOBLEDGER_SITE_URL)' }]);
    } finally {
      await sited.close();
    }
  });

  it('documents the error body and the page envelopes once, as named components every operation refers to', () => {
    const schemas = (doc.components as unknown as { schemas: Record<string, { required?: string[] }> }).schemas;
    expect(schemas.Error!.required).toEqual(['error', 'message', 'docs', 'type', 'title', 'status']);
    expect(schemas.JobPage!.required).toEqual(['data', 'has_more', 'next_cursor']);
    expect(schemas.JobEnvelope!.required).toEqual(['data', 'description']);
    expect(schemas.CompanyPage!.required).toEqual(['data', 'has_more', 'limit', 'offset', 'next_cursor']);
    expect(schemas.CompanyEnvelope!.required).toEqual(['data']);
    expect(schemas.ChangesPage!.required).toEqual(['count', 'data', 'next_since']);
    expect(schemas.ExpiredPage!.required).toEqual(['count', 'data', 'next_since']);
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const body = (path: string, status: string) => doc.paths[path]!.get!.responses[status]!.content!['application/json']!.schema;
    for (const path of ['/v1/jobs', '/public/jobs', '/v1/jobs/closed']) expect(body(path, '200'), path).toEqual(ref('JobPage'));
    for (const path of ['/v1/jobs/{id}', '/public/jobs/{id}']) expect(body(path, '200'), path).toEqual(ref('JobEnvelope'));
    for (const path of ['/v1/companies', '/public/companies']) expect(body(path, '200'), path).toEqual(ref('CompanyPage'));
    for (const path of ['/v1/companies/{slug}', '/public/companies/{slug}']) expect(body(path, '200'), path).toEqual(ref('CompanyEnvelope'));
    expect(body('/v1/changes', '200')).toEqual(ref('ChangesPage'));
    expect(body('/v1/jobs/expired', '200')).toEqual(ref('ExpiredPage'));
    // Every 4xx and 5xx body refers to the Error component: see the security test below.
  });

  it('marks the response enumerations open (x-extensible-enum beside enum), and leaves the parameters closed', () => {
    const schemas = (doc.components as unknown as { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }).schemas;
    const error = schemas.Error!.properties.error!;
    expect(error['x-extensible-enum']).toEqual(error.enum);
    expect(error.enum).toContain('not_found');
    expect(schemas.Job!.properties.status).toMatchObject({ enum: ['live', 'closed'], 'x-extensible-enum': ['live', 'closed'] });
    const status = doc.paths['/v1/jobs']!.get!.parameters!.find((p) => p.name === 'status') as unknown as { schema: Record<string, unknown> };
    expect(status.schema.enum).toEqual(['live', 'closed', 'any']);
    expect(status.schema['x-extensible-enum']).toBeUndefined();
  });

  it('documents every registered route, and every documented route is registered', () => {
    const registered = ctx.app.registeredRoutes
      // HEAD twins are generated for every GET; OPTIONS * answers CORS preflights.
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([p, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(documented).toEqual([...new Set(registered)]);
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /v1/jobs',
        'GET /v1/jobs/{id}',
        'GET /v1/companies',
        'GET /v1/companies/{slug}',
        'GET /v1/export',
        'GET /v1/meta/freshness',
        'GET /public/jobs',
        'GET /public/companies/{slug}',
        'GET /public/freshness',
        'GET /public/coverage',
        'GET /public/coverage/countries',
        'GET /public/coverage/employers',
        'GET /public/stats',
        'GET /public/status',
        'GET /public/ai-prompt',
        'GET /public/openapi.json',
        'GET /public/openapi.yaml',
        'GET /v1/openapi.json',
        'GET /v1/openapi.yaml',
        'GET /health',
      ]),
    );
  });

  it('marks keyed operations with the bearer scheme, keyless ones with none, and gives every error the error body', () => {
    const ids = new Set<string>();
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const op of Object.values(methods)) {
        expect(op.operationId, p).toBeTruthy();
        expect(ids.has(op.operationId!), `duplicate operationId ${op.operationId}`).toBe(false);
        ids.add(op.operationId!);
        // /mcp (the MCP server) takes the API key as bearer too (issue 19).
        const keyed = (p.startsWith('/v1/') && !p.startsWith('/v1/openapi')) || p === '/mcp';
        expect(op.security, p).toEqual(keyed ? [{ bearerAuth: [] }] : []);
        if (keyed) expect(Object.keys(op.responses), p).toContain('401');
        for (const [status, response] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          expect(response.content?.['application/json']?.schema, `${p} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    }
  });

  it('answers another method on a known path with 405 method_not_allowed and Allow, an unknown path with 404', async () => {
    for (const [method, url] of [['POST', '/v1/jobs'], ['DELETE', '/public/jobs/some-slug'], ['PUT', '/v1/meta/facets?x=1']] as const) {
      const res = await ctx.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers.allow).toBe('GET, HEAD');
      expect(res.json()).toMatchObject({ error: 'method_not_allowed', message: `"${url.split('?')[0]}" answers GET and HEAD only, not ${method}.` });
    }
    const unknown = await ctx.app.inject({ method: 'POST', url: '/v1/nothing-here' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: 'not_found', message: 'No endpoint answers POST "/v1/nothing-here".' });
  });

  it('validates responses: conforming ones pass, broken ones are caught', () => {
    const contract = new Contract(doc);
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const good = { data: [], has_more: false, limit: 25, offset: 0, next_cursor: null };
    expect(contract.problems('GET', '/v1/companies?limit=25', { statusCode: 200, headers: json, body: JSON.stringify(good) })).toEqual([]);
    // A required field missing, a wrong type, an undocumented status, a wrong media type, an unknown path.
    expect(contract.problems('GET', '/v1/companies', { statusCode: 200, headers: json, body: JSON.stringify({ ...good, has_more: undefined }) })[0]).toContain('has_more');
    expect(contract.problems('GET', '/v1/companies', { statusCode: 200, headers: json, body: JSON.stringify({ ...good, offset: 'zero' }) })[0]).toContain('offset');
    expect(contract.problems('GET', '/v1/companies', { statusCode: 418, headers: json, body: '{}' })[0]).toContain('status 418 is not documented');
    expect(contract.problems('GET', '/v1/companies', { statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<p>' })[0]).toContain('content type');
    expect(contract.problems('GET', '/v1/nothing', { statusCode: 200, headers: json, body: '{}' })[0]).toContain('not in the OpenAPI document');
    const error = { error: 'not_found', message: 'No such resource.', docs: 'x' };
    expect(contract.problems('GET', '/v1/nothing', { statusCode: 404, headers: json, body: JSON.stringify(error) })).toEqual([]);
    // NDJSON bodies are checked line by line.
    const ndjson = { 'content-type': 'application/x-ndjson; charset=utf-8' };
    const end = JSON.stringify({ complete: true, count: 0, after: null, since: '2026-11-01T00:00:00.000Z|ffffffff-ffff-ffff-ffff-ffffffffffff' });
    expect(contract.problems('GET', '/v1/export', { statusCode: 200, headers: ndjson, body: `${end}\n` })).toEqual([]);
    expect(contract.problems('GET', '/v1/export', { statusCode: 200, headers: ndjson, body: `{"id":"x"}\n${end}\n` })[0]).toContain('line 1');
    // A 301 is documented without content.
    expect(contract.problems('GET', '/v1/companies/old', { statusCode: 301, headers: {}, body: '' })).toEqual([]);
  });
});
