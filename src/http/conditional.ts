/**
 * Conditional GET (issue 19, HTTP conventions; RFC 9110 §8.8.3 ETag, §13.1.2 If-None-Match, §15.4.5
 * 304 Not Modified). A response that may be revalidated carries an `ETag` computed from its serialized
 * bytes; a request whose `If-None-Match` names that tag (or `*`) gets `304 Not Modified` with the same
 * headers and no body.
 *
 * Which responses (successful GET and HEAD only):
 * - every keyless route (`/public/...`);
 * - the keyed reports, vocabularies and providers (`/v1/meta/...`) and the OpenAPI document
 *   (`/v1/openapi.{json,yaml}`): they cost no records;
 * - the feeds' empty pages (`/v1/changes`, `/v1/jobs/expired`, `/v1/jobs/closed` answering no rows):
 *   a client polling with a reused cursor learns "nothing new" in a 304. A page with rows has already
 *   been metered when its bytes exist, so it is never revalidated; a 304 on a keyed route therefore
 *   costs a request (charged in `onRequest`, before any of this) but no records.
 *
 * Strong and weak tags: the tag is strong (`"…"`), the SHA-256 of the bytes, unless the body states
 * the moment of the response (`age_seconds`, the freshness report's `generated_at`: the reports and the
 * facet snapshots); then the tag is weak (`W/"…"`), of the content without those fields: two
 * responses of the same snapshot are semantically equivalent though their ages differ. If-None-Match
 * compares weakly (RFC 9110 §13.1.2), so both revalidate.
 *
 * The tag of a body is {@link entityTag}, exported so that a cache of serialized bytes computes the
 * same tag once per body instead of once per response.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** How a route's successful responses are revalidated. */
export type ConditionalKind =
  /** Every successful response carries a strong tag of its bytes. */
  | 'bytes'
  /** As `bytes`, with the response's moment (`age_seconds`, `generated_at`) left out: a weak tag. */
  | 'snapshot'
  /** Only a page whose `data` is empty carries a tag (a page with rows was metered). */
  | 'empty-page';

/**
 * Keyed routes that are revalidated, by route pattern; every `/public/...` route is too
 * ({@link conditionalKindOf}). Paths use `{}` for a path parameter.
 */
export const KEYED_CONDITIONAL_ROUTES: Readonly<Record<string, ConditionalKind>> = {
  '/v1/meta/freshness': 'snapshot',
  '/v1/meta/facets': 'snapshot',
  '/v1/meta/providers': 'snapshot',
  '/v1/openapi.json': 'bytes',
  '/v1/openapi.yaml': 'bytes',
  '/v1/changes': 'empty-page',
  '/v1/jobs/expired': 'empty-page',
  '/v1/jobs/closed': 'empty-page',
};

/** Keyless routes whose bodies state the response's moment (reports, facet snapshots). */
const KEYLESS_SNAPSHOT_ROUTES: ReadonlySet<string> = new Set([
  '/public/freshness',
  '/public/coverage',
  '/public/coverage/countries',
  '/public/coverage/employers',
  '/public/stats',
  '/public/facets',
  '/public/providers',
]);

/** The kind of a route pattern (Fastify's `:param` syntax or `{}`), or undefined: never revalidated. */
export function conditionalKindOf(routePattern: string): ConditionalKind | undefined {
  const path = routePattern.replace(/:[^/]+/g, '{}').replace(/\/+$/, '');
  if (path.startsWith('/public/')) return KEYLESS_SNAPSHOT_ROUTES.has(path) ? 'snapshot' : 'bytes';
  return KEYED_CONDITIONAL_ROUTES[path];
}

function digest(bytes: string | Uint8Array): string {
  // 128 bits of SHA-256 in base64url: collision-free for any cache's purpose, and short.
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
}

/**
 * The strong entity tag of serialized response bytes, quoted as the `ETag` header carries it
 * (`"<22 base64url characters>"`: the first 128 bits of their SHA-256). Equal bytes, equal tags.
 */
export function entityTag(bytes: string | Uint8Array): string {
  return `"${digest(bytes)}"`;
}

/** Fields whose value is the moment of the response, not the resource. */
const MOMENT_FIELDS: ReadonlySet<string> = new Set(['age_seconds', 'generated_at']);

/** `value` as JSON with object keys sorted and the moment fields left out, at any depth. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([key, v]) => !MOMENT_FIELDS.has(key) && v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, v]) => `${JSON.stringify(key)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The weak entity tag of a JSON body that states the moment of the response (a report, a facet
 * snapshot), as `W/"…"`: the tag of its content with `age_seconds` and `generated_at` left out and
 * keys in a canonical order (a report just measured and the same report read back from its stored
 * snapshot order their keys differently, yet are the same report). Not JSON: the tag of its bytes.
 */
export function snapshotEntityTag(json: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return `W/${entityTag(json)}`;
  }
  return `W/${entityTag(canonicalJson(parsed))}`;
}

/**
 * Whether an `If-None-Match` field value matches `tag` (RFC 9110 §13.1.2: `*` matches any current
 * representation; otherwise the weak comparison of each listed tag). Malformed members never match.
 */
export function ifNoneMatchHits(field: string | undefined, tag: string): boolean {
  if (field === undefined) return false;
  if (field.trim() === '*') return true;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  const wanted = opaque(tag);
  return field.split(',').some((member) => opaque(member) === wanted);
}

/** An empty page is a few hundred bytes (or UTF-16 units); anything longer has rows, and is not parsed. */
const EMPTY_PAGE_MAX_LENGTH = 4096;

/** A page body with rows? Only empty pages of the feeds are revalidated. Longer bodies are turned away before (`tagOf`). */
function isEmptyPage(payload: string): boolean {
  try {
    const body = JSON.parse(payload) as { data?: unknown };
    return Array.isArray(body.data) && body.data.length === 0;
  } catch {
    return false;
  }
}

/** The tag of a response, or undefined when it is not revalidated. */
function tagOf(request: FastifyRequest, reply: FastifyReply, payload: unknown): string | undefined {
  if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
  if (reply.statusCode !== 200 || request.is404) return undefined;
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return undefined;
  const kind = conditionalKindOf(pattern);
  if (kind === undefined) return undefined;
  // Streams (the export) are never buffered here.
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  // A cache of serialized bytes (keyless-page-cache.ts) set the tag it computed once per body: the
  // body is not decoded again for it.
  const preset = reply.getHeader('etag');
  if (kind === 'bytes' && typeof preset === 'string') return preset;
  // A page with rows is never tagged, so a large body (a change feed page is up to about 6 MB of
  // bytes) is not decoded to find that out.
  if (kind === 'empty-page' && payload.length > EMPTY_PAGE_MAX_LENGTH) return undefined;
  const bytes = typeof payload === 'string' ? payload : payload.toString('utf8');
  if (kind === 'empty-page' && !isEmptyPage(bytes)) return undefined;
  return kind === 'snapshot' ? snapshotEntityTag(bytes) : entityTag(bytes);
}

/**
 * Add `ETag` and the 304 answer to the app. Register after the keyless access hooks (so a 304 keeps
 * the `Cache-Control` of the 200 it stands for, RFC 9110 §15.4.5) and before the routes; on the keyed
 * scope the budget hooks run after this one and set their headers on the 304 too.
 */
export function installConditionalRequests(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const tag = tagOf(request, reply, payload);
    if (tag === undefined) return payload;
    reply.header('ETag', tag);
    if (!ifNoneMatchHits(request.headers['if-none-match'], tag)) return payload;
    reply.code(304);
    reply.removeHeader('Content-Type');
    reply.removeHeader('Content-Length');
    return '';
  });
}

type Json = Record<string, unknown>;

const ETAG_HEADER: Json = {
  description: 'Validator of this response (RFC 9110 §8.8.3). Send it back in If-None-Match to get 304 Not Modified when nothing changed. Weak (`W/`) on reports and vocabularies, whose `age_seconds` changes while their content does not.',
  schema: { type: 'string' },
  example: '"3q2-7wQm1h0QeB9cP9mXbA"',
};

const IF_NONE_MATCH: Json = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description: 'ETag values of a response you hold (or `*`). When one matches, the answer is 304 Not Modified without a body.',
  schema: { type: 'string' },
  example: '"3q2-7wQm1h0QeB9cP9mXbA"',
};

/**
 * Add the `ETag` header, the `If-None-Match` parameter and the 304 response to every operation of
 * an OpenAPI document that is revalidated (a `transformObject` step of @fastify/swagger).
 */
export function documentConditionalRequests<T>(document: T): T {
  const doc = document as Json;
  const components = ((doc.components ??= {}) as Json);
  components.headers = { ...(components.headers as Json | undefined), ETag: ETAG_HEADER };
  components.parameters = { ...(components.parameters as Json | undefined), IfNoneMatch: IF_NONE_MATCH };
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    const kind = conditionalKindOf(path.replace(/\{[^}]+\}/g, '{}'));
    const operation = item.get as Json | undefined;
    if (kind === undefined || !operation?.responses) continue;
    const responses = operation.responses as Record<string, Json>;
    if (responses['200']) {
      const headers = ((responses['200'].headers ??= {}) as Json);
      headers.ETag = { $ref: '#/components/headers/ETag' };
    }
    // Inline, not a $ref: the budget headers are added to each response object after this step.
    responses['304'] = { description: 'Not Modified: the ETag sent in If-None-Match is current. No body; the headers of the 200 it stands for.', headers: { ETag: { $ref: '#/components/headers/ETag' } } };
    const parameters = ((operation.parameters ??= []) as Json[]);
    parameters.push({ $ref: '#/components/parameters/IfNoneMatch' });
  }
  return document;
}
