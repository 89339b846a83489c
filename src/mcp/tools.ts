/**
 * The MCP tools (issue 19, "An MCP server"): each one is a REST operation of the keyed surface, with
 * its input schema taken from that operation's TypeBox parameter table (src/http/schemas/), so a tool
 * documents, validates and meters exactly as its REST twin does. A call becomes one GET on the /v1
 * path (see server.ts), answered by the same route, authentication, limits and record meter.
 */
import type { TSchema } from 'typebox';
import { SlugParams, keyedDirectoryQuery } from '../http/schemas/companies.ts';
import { JobIdParams, jobQuery, keyedJobsQuery } from '../http/schemas/jobs.ts';
import { changesQuery } from '../http/schemas/sync.ts';

/** A JSON Schema object as MCP's `inputSchema` wants it (`type: object`). */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

/** One tool: its MCP name, description and input schema, and the REST request a call makes. */
export interface RestTool {
  name: string;
  title: string;
  description: string;
  inputSchema: ToolInputSchema;
  /** The REST twin, for documentation: `GET /v1/...`. */
  rest: string;
  /**
   * The path (under /v1, path parameters filled in and percent-encoded) and the query parameters of
   * a call with `args`; the path parameters are taken out of the query.
   */
  request(args: Record<string, unknown>): { path: string; query: Record<string, unknown> };
}

/** A TypeBox schema as plain JSON Schema (TypeBox's own symbol-keyed markers dropped). */
function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/** The object schema of `objects` merged (path parameters first); `required` names what must be sent. */
function inputSchema(objects: TSchema[], required: string[] = []): ToolInputSchema {
  const properties: Record<string, unknown> = {};
  for (const object of objects) Object.assign(properties, (jsonSchema(object).properties as Record<string, unknown> | undefined) ?? {});
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The request of a tool for one item of `collection` (e.g. `/jobs`): path parameter `name` becomes the
 * path segment after it, trimmed and percent-encoded, and the other arguments the query.
 * The request throws Error when `name` is missing or empty.
 */
function itemRequest(collection: string, name: string): RestTool['request'] {
  return (args) => {
    const { [name]: value, ...rest } = args;
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`${name} is required`);
    return { path: `${collection}/${encodeURIComponent(value.trim())}`, query: rest };
  };
}

const SHARED_FILTERS_NOTE =
  'Arguments are the query parameters of the REST twin (same names, values and errors; lists as arrays). The result is the REST answer as JSON; every row returned costs one record of the key, as over REST.';

/** Every tool the MCP server offers, in listing order. */
export const TOOLS: readonly RestTool[] = [
  {
    name: 'search_jobs',
    title: 'Search job listings',
    description: `Live employer-direct job listings matching the shared listing filters (q, title, country, city, remote, category, seniority, salary, posted_after, ...), newest first; page with cursor = the previous next_cursor. REST twin: GET /v1/jobs. ${SHARED_FILTERS_NOTE}`,
    inputSchema: inputSchema([keyedJobsQuery.schema]),
    rest: 'GET /v1/jobs',
    request: (args) => ({ path: '/jobs', query: args }),
  },
  {
    name: 'get_job',
    title: 'Get one job',
    description: `One job by uuid or slug, with its description and per-field provenance (field_sources); include_closed=true also returns a closed row. REST twin: GET /v1/jobs/{id}. Costs one record.`,
    inputSchema: inputSchema([JobIdParams, jobQuery.schema], ['id']),
    rest: 'GET /v1/jobs/{id}',
    request: itemRequest('/jobs', 'id'),
  },
  {
    name: 'list_companies',
    title: 'List employers',
    description: `The employer directory, most open roles first; filters country, org_type, source_type, has_website, q; page with cursor (or offset). REST twin: GET /v1/companies. ${SHARED_FILTERS_NOTE}`,
    inputSchema: inputSchema([keyedDirectoryQuery.schema]),
    rest: 'GET /v1/companies',
    request: (args) => ({ path: '/companies', query: args }),
  },
  {
    name: 'get_company',
    title: 'Get one employer',
    description: 'One employer by slug. A retired slug answers with the current one (HTTP 301 over REST). REST twin: GET /v1/companies/{slug}. Costs one record.',
    inputSchema: inputSchema([SlugParams], ['slug']),
    rest: 'GET /v1/companies/{slug}',
    request: itemRequest('/companies', 'slug'),
  },
  {
    name: 'list_facets',
    title: 'List facets',
    description: 'Every controlled vocabulary (categories, seniorities, remote, employment types, countries, providers, ...) with live-row counts: the legal values of the search filters. REST twin: GET /v1/meta/facets. Costs no records.',
    inputSchema: { type: 'object', properties: {} },
    rest: 'GET /v1/meta/facets',
    request: () => ({ path: '/meta/facets', query: {} }),
  },
  {
    name: 'recent_changes',
    title: 'Recent changes',
    description: `The delta feed: every change (created, updated, delisted, withdrawn) after since (an RFC 3339 timestamp, then the previous next_since verbatim), in commit order. Needs the delta_feed entitlement. REST twin: GET /v1/changes. ${SHARED_FILTERS_NOTE}`,
    inputSchema: inputSchema([changesQuery.schema], ['since']),
    rest: 'GET /v1/changes',
    request: (args) => ({ path: '/changes', query: args }),
  },
];

/**
 * The query string of `query` as the REST surface reads it: arrays as comma lists, scalars as
 * strings, null and undefined left out.
 */
export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(name, Array.isArray(value) ? value.map(String).join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  const qs = params.toString();
  return qs ? `?${qs}` : '';
}
