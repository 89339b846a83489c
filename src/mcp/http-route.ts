/**
 * `POST /mcp`: the MCP server over Streamable HTTP (MCP 2025-06-18, "Transports"), stateless: every
 * POST carries one JSON-RPC message and gets its answer as JSON (no session, no server-initiated
 * stream; a GET answers 405, as the transport allows). The caller's API key is the bearer, checked
 * like on /v1 (the identical 401); each tool call is then sent in process to its /v1 twin with the
 * same Authorization header, so it is limited and metered there.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/context.ts';
import { requireApiKey } from '../http/plugins/auth.ts';
import { errorResponses } from '../http/schemas/errors.ts';
import type * as McpTransport from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as McpServer from './server.ts';

/** The path of the Streamable HTTP endpoint. */
export const MCP_PATH = '/mcp';

let mcpModules: Promise<[typeof McpTransport, typeof McpServer]> | undefined;

/**
 * The MCP SDK (zod with it) and the server built on it, imported with the first `/mcp` request:
 * imported with the app they held about 6 MB of every API process's heap and RSS (2026-11-29,
 * bench/README.md "export RSS"), for a route that answers agents only.
 */
function loadMcp() {
  mcpModules ??= Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.ts')]);
  return mcpModules;
}

const JsonRpcMessage = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()])),
    method: Type.Optional(Type.String({ examples: ['initialize', 'tools/list', 'tools/call'] })),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true, description: 'One JSON-RPC 2.0 message of the Model Context Protocol.' },
);

/**
 * The `/mcp` route; `root` is the app whose /v1 routes answer the tool calls (the root instance, so
 * the call runs every hook a real request runs).
 */
export function mcpRoutes(ctx: AppContext, root: FastifyInstance) {
  return async (app: FastifyInstance) => {
    app.post(
      MCP_PATH,
      {
        onRequest: requireApiKey(ctx),
        schema: {
          operationId: 'mcp',
          tags: ['mcp'],
          summary: 'Model Context Protocol server (Streamable HTTP, stateless; tools search_jobs, get_job, list_companies, get_company, list_facets, recent_changes)',
          description:
            'Send JSON-RPC messages with Accept: application/json, text/event-stream and Authorization: Bearer <API_KEY>. Each tool call is answered by its REST twin under /v1 and costs what that costs (docs/mcp.md).',
          security: [{ bearerAuth: [] }],
          body: JsonRpcMessage,
          response: {
            200: Type.Object({}, { additionalProperties: true, description: 'The JSON-RPC response.' }),
            202: Type.Null({ description: 'A notification or response was accepted; no body.' }),
            ...errorResponses(401, 503),
          },
        },
      },
      async (request, reply) => {
        const [{ StreamableHTTPServerTransport }, { createMcpServer, injectCaller }] = await loadMcp();
        const server = createMcpServer(injectCaller(root, request.headers.authorization));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        reply.hijack();
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      },
    );
  };
}
