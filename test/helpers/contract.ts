/**
 * Contract checks: every response an HTTP test receives must match the OpenAPI document the same app
 * serves (ARCHITECTURE "Tests in tiers", 4). `buildTestApp` wraps `app.inject` with
 * {@link validatingInject}, so every `app.inject` call in the suite is checked without the test doing
 * anything; a response that breaks the contract fails the test that received it.
 *
 * What is checked, per response: the path and method are documented (an undocumented path may only
 * answer 404 with the error body), the status is documented for that operation, the media type is one
 * the operation lists (a response documented without content must have an empty body), and the body
 * validates against that media type's schema (JSON: the whole body; NDJSON: every line). Schemas are
 * JSON Schema 2020-12, as OpenAPI 3.1 uses them, validated by Ajv.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: Json;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const ERROR_BODY = {
  type: 'object',
  required: ['error', 'message', 'docs'],
  properties: { error: { type: 'string' }, message: { type: 'string' }, docs: { type: 'string' } },
};

function pointer(...segments: string[]): string {
  return segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
}

/** The served contract, compiled for validation. */
export class Contract {
  readonly doc: OpenApiDocument;
  private readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly routes: Array<{ template: string; pattern: RegExp; params: number }>;

  constructor(doc: OpenApiDocument) {
    this.doc = doc;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema(doc as unknown as Json, 'openapi');
    this.routes = Object.keys(doc.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // Literal paths win over templated ones (/public/coverage/countries before a {param}).
      .sort((a, b) => a.params - b.params);
  }

  /** The documented path template that `pathname` matches, if any. */
  match(pathname: string): string | undefined {
    return this.routes.find((r) => r.pattern.test(pathname))?.template;
  }

  private validator(template: string, method: string, status: string, mediaType: string): ValidateFunction {
    const ref = `openapi#/${pointer('paths', template, method, 'responses', status, 'content', mediaType, 'schema')}`;
    let v = this.cache.get(ref);
    if (!v) {
      v = this.ajv.compile({ $ref: ref });
      this.cache.set(ref, v);
    }
    return v;
  }

  /**
   * Problems of one response against the contract; empty when it conforms.
   * @param method HTTP method, any case. @param url path with optional query string.
   */
  problems(method: string, url: string, res: { statusCode: number; headers: Record<string, unknown>; body: string }): string[] {
    // HEAD is answered by the GET route (Fastify's exposeHeadRoutes): it follows GET's contract, minus the body.
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const head = method.toLowerCase() === 'head';
    if (verb === 'options') return [];
    // The router matches the decoded path, so the contract is matched on it too (/%70ublic → /public).
    const raw = url.split('?')[0]!;
    let pathname = raw;
    try {
      pathname = decodeURIComponent(raw);
    } catch {
      // A malformed escape reaches no route; match it as sent.
    }
    const where = `${method.toUpperCase()} ${pathname} → ${res.statusCode}`;
    const template = this.match(pathname);
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (!template || !this.doc.paths[template]?.[verb]) {
      // An unknown path is a 404; a known path asked with a method it lacks is a 405 (docs/errors.md).
      const methodNotAllowed = res.statusCode === 405 && template !== undefined;
      if (res.statusCode !== 404 && !methodNotAllowed) return [`${where}: the path and method are not in the OpenAPI document`];
      const ok = this.ajv.validate(ERROR_BODY, safeJson(res.body));
      return ok ? [] : [`${where}: an undocumented path must answer the error body`];
    }
    const responses = this.doc.paths[template]![verb]!.responses ?? {};
    const status = String(res.statusCode);
    const documented = responses[status] ? status : responses.default ? 'default' : undefined;
    if (!documented) return [`${where}: status ${status} is not documented for ${verb.toUpperCase()} ${template}`];
    if (head) return [];
    const content = responses[documented]!.content;
    if (!content || Object.keys(content).length === 0) {
      return res.body.length === 0 ? [] : [`${where}: documented without content, but the body has ${res.body.length} bytes`];
    }
    const mediaType = content[contentType] ? contentType : undefined;
    if (!mediaType) return [`${where}: content type "${contentType}" is not one of ${Object.keys(content).join(', ')}`];
    if (!content[mediaType]!.schema) return [];
    const validate = this.validator(template, verb, documented, mediaType);
    const values: unknown[] =
      mediaType === 'application/x-ndjson'
        ? res.body.split('\n').filter((l) => l.length > 0).map(safeJson)
        : mediaType.endsWith('json')
          ? [safeJson(res.body)]
          : [res.body];
    const problems: string[] = [];
    values.forEach((value, i) => {
      if (!validate(value)) {
        const at = values.length > 1 ? ` (line ${i + 1})` : '';
        problems.push(`${where}${at}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`);
      }
    });
    return problems.slice(0, 5);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { __unparseable__: text.slice(0, 200) };
  }
}

/** Thrown when a response breaks the contract. */
export class ContractViolation extends Error {
  constructor(problems: string[]) {
    super(`response does not match the served OpenAPI document:\n  ${problems.join('\n  ')}`);
    this.name = 'ContractViolation';
  }
}

/** Load and compile the document `app` serves at /v1/openapi.json. */
export async function loadContract(app: FastifyInstance): Promise<Contract> {
  const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
  return new Contract(JSON.parse(res.body) as OpenApiDocument);
}

/**
 * Make every `app.inject(options)` call validate its response against the served document and throw
 * {@link ContractViolation} when it does not conform. Only the promise form of inject is wrapped.
 */
export function validatingInject(app: FastifyInstance): void {
  const original = app.inject.bind(app) as (o: InjectOptions | string) => Promise<LightMyRequestResponse>;
  let contract: Promise<Contract> | undefined;
  const wrapped = async (options: InjectOptions | string): Promise<LightMyRequestResponse> => {
    const res = await original(options);
    const opts = typeof options === 'string' ? { method: 'GET', url: options } : options;
    contract ??= original({ method: 'GET', url: '/v1/openapi.json' }).then((r) => new Contract(JSON.parse(r.body) as OpenApiDocument));
    const url = typeof opts.url === 'string' ? opts.url : String(opts.path ?? '/');
    const problems = (await contract).problems(String(opts.method ?? 'GET'), url, { statusCode: res.statusCode, headers: res.headers, body: res.body });
    if (problems.length > 0) throw new ContractViolation(problems);
    return res;
  };
  (app as unknown as { inject: typeof wrapped }).inject = wrapped;
}
