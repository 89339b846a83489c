/**
 * OpenTelemetry tracing of the API's requests (issue 20, "Observability"), opt-in by the standard
 * OTEL_* variables (config `tracing`, docs/deploy.md "Tracing").
 *
 * Off by default, and then nothing of OpenTelemetry is loaded: the SDK and `@fastify/otel` are
 * imported here dynamically, only once {@link tracingEnabled} says yes (test/tracing.test.ts checks
 * that no module imports them statically). On, the Node SDK is started with the exporter, sampler,
 * propagators and resource the OTEL_* variables describe, and `@fastify/otel` hooks every Fastify
 * instance created afterwards: one server span per request, named `METHOD route`, continuing a W3C
 * `traceparent` sent by the caller, and a child span for the route's handler.
 *
 * Only traces: the service's metrics stay on `/metrics` (observability/metrics.ts), and logs in pino.
 * The span's `url.path` is the path without its query (values may hold secrets, as for the access log).
 */
import type { Span } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { maskSecret, tracingEnabled, type Config } from '../config/config.ts';

/** Started tracing; {@link Tracing.shutdown} exports the spans still buffered and stops. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** The span attribute `@fastify/otel` fills with the raw URL (query included). */
const URL_PATH = 'url.path';

/** Name the request span after its route and keep the query's values out of it. */
function describeRequest(span: Span, request: FastifyRequest): void {
  const route = request.routeOptions.url;
  span.updateName(route ? `${request.method} ${route}` : request.method);
  span.setAttribute(URL_PATH, request.url.split('?')[0]!);
}

/**
 * Start tracing when `config` asks for it (see {@link tracingEnabled}), before the Fastify app is
 * built: `@fastify/otel` instruments instances created after this. Undefined when tracing is off.
 */
export async function startTracing(config: Config['tracing'], log: Logger): Promise<Tracing | undefined> {
  if (!tracingEnabled(config)) return undefined;
  const [{ NodeSDK }, { FastifyOtelInstrumentation }] = await Promise.all([import('@opentelemetry/sdk-node'), import('@fastify/otel')]);
  const sdk = new NodeSDK({
    serviceName: config.serviceName,
    instrumentations: [
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // One span per hook would be some fifteen per request (access, limits, ETag, compression, ...);
        // the request and its handler are what an operator follows.
        instrumentHooks: false,
        requestHook: describeRequest,
      }),
    ],
    // Metrics are Prometheus' (/metrics) and logs pino's: the SDK exports spans only.
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  const target = config.tracesEndpoint ?? config.endpoint;
  log.info({ exporter: config.exporter ?? 'otlp', endpoint: target === undefined ? undefined : maskSecret(target), protocol: config.protocol, serviceName: config.serviceName }, 'OpenTelemetry tracing on');
  return {
    async shutdown() {
      await sdk.shutdown().catch((error: unknown) => log.warn({ err: error }, 'OpenTelemetry: the last spans could not be exported'));
    },
  };
}
