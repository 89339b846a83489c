/**
 * OpenTelemetry tracing (issue 20, "Observability"; src/observability/tracing.ts): `serve` with
 * OTEL_EXPORTER_OTLP_ENDPOINT set sends a span per request to a real OTLP/HTTP receiver on loopback,
 * continuing the caller's traceparent; with no OTEL_* variable nothing of OpenTelemetry is loaded.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, tracingEnabled } from '../src/config/config.ts';
import { startCli, type CliProcess } from './helpers/cli-process.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

/** One span of an OTLP/JSON export request, with its resource's attributes. */
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

type KeyValue = { key: string; value: Record<string, unknown> };
const attributeMap = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));

/** A plain OTLP/HTTP receiver: accepts POST /v1/traces (JSON encoding) and keeps every span. */
function otlpReceiver(): Promise<{ server: http.Server; url: string; spans: ReceivedSpan[]; paths: string[] }> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const request = JSON.parse(body.toString('utf8')) as { resourceSpans: Array<{ resource: { attributes: KeyValue[] }; scopeSpans: Array<{ spans: Array<Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes: KeyValue[] }> }> }> };
        for (const rs of request.resourceSpans) {
          for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, attributes: attributeMap(s.attributes), resource: attributeMap(rs.resource.attributes) });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, paths })));
}

describe('tracing on', () => {
  let t: TestDatabase;
  let api: CliProcess | undefined;
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;

  beforeAll(async () => {
    [t, receiver] = await Promise.all([createTestDatabase(), otlpReceiver()]);
  });
  afterAll(async () => {
    if (api && api.child.exitCode === null) {
      api.child.kill('SIGTERM');
      await api.exited;
    }
    receiver?.server.close();
    await t?.drop();
  });

  it('exports a server span per request to the OTLP endpoint, in the caller\'s trace, without the query', async () => {
    const port = await freePort();
    api = startCli(['serve', '--no-worker'], {
      DATABASE_URL: t.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'jobledger-test',
      // Export within a tenth of a second instead of the specification's five.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    await api.waitFor('jobledger is serving');
    expect(api.output()).toContain('OpenTelemetry tracing on');

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const res = await fetch(`http://127.0.0.1:${port}/public/jobs?country=US&q=secret-looking-value`, { headers: { traceparent: `00-${traceId}-${parentId}-01` } });
    expect(res.status).toBe(200);

    const deadline = Date.now() + 20_000;
    let span: ReceivedSpan | undefined;
    while (!(span = receiver.spans.find((s) => s.name === 'GET /public/jobs')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(span, `spans received: ${receiver.spans.map((s) => s.name).join(', ')}; requests: ${receiver.paths.join(', ')}`).toBeDefined();
    expect(span!.traceId).toBe(traceId);
    expect(span!.parentSpanId).toBe(parentId);
    expect(span!.kind).toBe(2); // SPAN_KIND_SERVER
    expect(span!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.route': '/public/jobs', 'url.path': '/public/jobs' });
    expect(Number(span!.attributes['http.response.status_code'])).toBe(200);
    expect(JSON.stringify(span)).not.toContain('secret-looking-value');
    expect(span!.resource['service.name']).toBe('jobledger-test');
    // The handler's span is a child of the request's.
    expect(receiver.spans.some((s) => s.traceId === traceId && s.parentSpanId === span!.spanId)).toBe(true);
  });
});

describe('tracing off', () => {
  it('is on only when an OTEL_* variable asks for it', () => {
    const enabled = (env: Record<string, string>) => tracingEnabled(loadConfig(env).tracing);
    expect(enabled({})).toBe(false);
    expect(enabled({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe(false);
    expect(enabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(enabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(enabled({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(enabled({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(enabled({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'jaeger' })).toThrow(/OTEL_TRACES_EXPORTER must be a comma list of otlp, console or none/);
  });

  it('loads nothing of OpenTelemetry unless it is on: no module imports it but dynamically, in tracing.ts', () => {
    const src = path.resolve(import.meta.dirname, '../src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    const otel = /^(@opentelemetry\/|@fastify\/otel$)/;
    const staticImports: string[] = [];
    const dynamicImports: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(src, file), 'utf8');
      // Value imports and re-exports (type-only ones are erased and load nothing).
      for (const m of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s+'([^']+)'/gm)) if (otel.test(m[1]!)) staticImports.push(`${file}: ${m[1]}`);
      for (const m of text.matchAll(/^import\s+'([^']+)'/gm)) if (otel.test(m[1]!)) staticImports.push(`${file}: ${m[1]}`);
      for (const m of text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) if (otel.test(m[1]!)) dynamicImports.push(`${file}: ${m[1]}`);
    }
    expect(staticImports).toEqual([]);
    expect(dynamicImports.sort()).toEqual(['observability/tracing.ts: @fastify/otel', 'observability/tracing.ts: @opentelemetry/sdk-node']);
  });
});
