/**
 * A route with query parameters, declared once (after unkey's `createRoute` route files): its OpenAPI
 * fields, its path parameters, its query contract (`query-table.ts`) and the context that contract's
 * parse needs. `serveRoute` registers it so that the handler receives the parsed, typed query; no
 * handler reads `request.query`. A route that reads no query parameter at all (a report, the facets,
 * the plans, the caller's key) is a {@link PlainRoute}, registered by `servePlainRoute`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema } from 'typebox';
import { requireEntitlement, type Entitlement } from '../access/entitlements.ts';
import type { ParamTable, QueryContract, RawQuery } from './query-table.ts';
import { errorResponses } from './schemas/errors.ts';

/** One GET route's contract. */
export interface RouteSpec<C, R, Params extends TObject | undefined> {
  url: string;
  operationId: string;
  tags: string[];
  summary: string;
  /** What the operation does, its cost and its refusals, in the OpenAPI document (issue 19: every operation has one). */
  description: string;
  security: Array<Record<string, string[]>>;
  /** Path parameters (strings). */
  params?: Params;
  query: QueryContract<ParamTable<C>, C, R>;
  /** What the query's parse needs to know about the caller (surface, plan, provider list). */
  context?: (request: FastifyRequest) => C | Promise<C>;
  /**
   * An entitlement the key must hold, checked before the query is read: a plan without it gets 403
   * `upgrade_required` whatever the query says (spec: Authentication item 7).
   */
  entitlement?: Entitlement;
  /** Responses by status, as Fastify's `schema.response`. */
  response: Record<number, TSchema | Record<string, unknown>>;
}

/** What a handler receives. */
export interface RouteInput<R, Params extends TObject | undefined> {
  request: FastifyRequest;
  reply: FastifyReply;
  query: R;
  params: Params extends TObject ? Static<Params> : Record<string, never>;
}

/** A route's contract with its types kept, for {@link serveRoute}. */
export function createRoute<C, R, Params extends TObject | undefined = undefined>(spec: RouteSpec<C, R, Params>): RouteSpec<C, R, Params> {
  return spec;
}

/**
 * What every keyed page route (/v1/jobs, /v1/jobs/closed, /v1/companies) declares alike: bearer
 * security, the context its query's parse needs, and its page body among the refusals a metered keyed
 * page may answer with (400, 401, 402, 422, 429, 500, 503). Spread into {@link createRoute}'s spec.
 */
export function keyedPage<C>(body: TSchema, context: (request: FastifyRequest) => C | Promise<C>): Pick<RouteSpec<C, unknown, undefined>, 'security' | 'context' | 'response'> {
  return { security: [{ bearerAuth: [] }], context, response: { 200: body, ...errorResponses(400, 401, 402, 422, 429, 500, 503) } };
}

/**
 * Register `route` on `app`. The framework validates none of the route's input: the query's validator
 * is its table's parser (see `query-table.ts`), and path parameters are plain strings.
 */
export function serveRoute<C, R, Params extends TObject | undefined>(
  app: FastifyInstance,
  route: RouteSpec<C, R, Params>,
  handler: (input: RouteInput<R, Params>) => Promise<unknown>,
): void {
  app.route({
    method: 'GET',
    url: route.url,
    schema: {
      operationId: route.operationId,
      tags: route.tags,
      summary: route.summary,
      description: route.description,
      security: route.security,
      ...(route.params === undefined ? {} : { params: route.params }),
      querystring: route.query.schema,
      response: route.response,
    },
    validatorCompiler: () => () => true,
    config: { query: route.query },
    handler: async (request, reply) => {
      if (route.entitlement) requireEntitlement(request.apiKey, route.entitlement);
      const context = (route.context ? await route.context(request) : undefined) as C;
      const query = route.query.parse(request.query as RawQuery, context);
      return handler({ request, reply, query, params: request.params as RouteInput<R, Params>['params'] });
    },
  });
}

/**
 * A GET route that reads no query parameter and no path parameter: its OpenAPI fields, its surface
 * and the schema of its 200 body.
 */
export interface PlainRoute<Body extends TSchema> {
  url: string;
  operationId: string;
  tags: string[];
  summary: string;
  /** What the operation answers, in the OpenAPI document. */
  description: string;
  /** `keyed`: bearer security, and 401 among its errors; `keyless`: no security. */
  surface: 'keyed' | 'keyless';
  body: Body;
}

/**
 * Register `route` on `app`. Besides its 200 body it documents the errors any answer on its surface may
 * carry: 429, 500, 503, and 401 on the keyed surface.
 */
export function servePlainRoute<Body extends TSchema>(
  app: FastifyInstance,
  route: PlainRoute<Body>,
  handler: (request: FastifyRequest) => Promise<Static<NoInfer<Body>>>,
): void {
  const keyed = route.surface === 'keyed';
  const response: RouteSpec<unknown, unknown, undefined>['response'] = { 200: route.body, ...(keyed ? errorResponses(401, 429, 500, 503) : errorResponses(429, 500, 503)) };
  app.route({
    method: 'GET',
    url: route.url,
    schema: { operationId: route.operationId, tags: route.tags, summary: route.summary, description: route.description, security: keyed ? [{ bearerAuth: [] }] : [], response },
    handler: async (request) => handler(request),
  });
}
