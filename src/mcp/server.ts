/**
 * The MCP server (official `@modelcontextprotocol/sdk`, low-level `Server`: the tools' input schemas
 * are the JSON Schemas TypeBox made for the REST parameter tables, see tools.ts). A tool call is sent
 * to its REST twin through a {@link RestCaller}: in process (`app.inject`, for `/mcp` and `jobledger
 * mcp`) or over HTTP (`jobledger mcp --url`). Either way the /v1 route authenticates, limits and
 * meters the call, so a tool costs what its REST twin costs.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import { queryString, TOOLS } from './tools.ts';

/** A REST answer as the tools need it. */
export interface RestAnswer {
  status: number;
  /** The body text (JSON for every /v1 answer). */
  body: string;
  /** Where a 301 points (a retired company slug). */
  location?: string;
}

/** Sends `GET /v1<pathAndQuery>` with the caller's key and returns the answer. */
export type RestCaller = (pathAndQuery: string) => Promise<RestAnswer>;

/** A caller that sends the request through `app` in process, with the `Authorization` header given. */
export function injectCaller(app: FastifyInstance, authorization: string | undefined): RestCaller {
  return async (pathAndQuery) => {
    const res = await app.inject({ method: 'GET', url: `/v1${pathAndQuery}`, headers: authorization ? { authorization } : {} });
    const location = res.headers.location;
    return { status: res.statusCode, body: res.body, ...(typeof location === 'string' ? { location } : {}) };
  };
}

/** A caller that sends the request to the jobledger at `baseUrl` with `apiKey` as bearer. */
export function httpCaller(baseUrl: string, apiKey: string): RestCaller {
  const base = baseUrl.replace(/\/+$/, '');
  return async (pathAndQuery) => {
    const res = await fetch(`${base}/v1${pathAndQuery}`, { headers: { authorization: `Bearer ${apiKey}` }, redirect: 'manual' });
    const location = res.headers.get('location');
    return { status: res.status, body: await res.text(), ...(location ? { location } : {}) };
  };
}

/** Name and version the server announces on initialize. */
export const MCP_SERVER_INFO = { name: 'jobledger', version: '0.1.0' };

const INSTRUCTIONS =
  'jobledger: employer-direct job vacancies with per-field provenance. Use list_facets for the legal filter values, search_jobs to find vacancies (page with next_cursor), get_job for one vacancy with its description, list_companies/get_company for employers, recent_changes to follow the delta feed. Every row returned costs one record of your API key, as over the REST API.';

/** The MCP answer to a REST answer: the JSON body as text and as structured content; an error answer is a tool error carrying the catalogue's body. */
function toolResult(answer: RestAnswer): CallToolResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    parsed = undefined;
  }
  if (answer.status === 301 && answer.location) {
    const moved = { moved_to: answer.location, message: `This slug was retired; the company now lives at ${answer.location}.` };
    return { content: [{ type: 'text', text: JSON.stringify(moved) }], structuredContent: moved };
  }
  const ok = answer.status >= 200 && answer.status < 300;
  const structured = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  return {
    content: [{ type: 'text', text: answer.body }],
    ...(structured ? { structuredContent: ok ? structured : { status: answer.status, ...structured } } : {}),
    ...(ok ? {} : { isError: true }),
  };
}

/**
 * An MCP server offering {@link TOOLS} over `call`. Unknown tool names and missing path arguments
 * answer as tool errors; everything else is the REST twin's answer.
 */
export function createMcpServer(call: RestCaller): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: { readOnlyHint: true, openWorldHint: false } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool ${JSON.stringify(request.params.name)}; the tools are ${TOOLS.map((t) => t.name).join(', ')}.` }] };
    let target: { path: string; query: Record<string, unknown> };
    try {
      target = tool.request(request.params.arguments ?? {});
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `${tool.name}: ${(error as Error).message}.` }] };
    }
    return toolResult(await call(`${target.path}${queryString(target.query)}`));
  });
  return server;
}
