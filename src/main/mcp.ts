/**
 * `jobledger mcp`: the MCP server over stdio, for an AI agent that starts it as a subprocess. Its tool
 * calls go to the /v1 routes with the given API key, so they are limited and metered like REST:
 * - in process (default): the real app (`buildApp`, as `serve` builds it, same request counters)
 *   over the configured ledger (DATABASE_URL, or the embedded PostgreSQL), answering without listening;
 *   its record meter takes no blocks (every reservation is written at once, docs/metering.md);
 * - with `url`: over HTTP to a running jobledger (no database needed here).
 * stdout carries the protocol only: logs go to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import pino from 'pino';
import { loadConfig } from '../config/config.ts';
import { buildApp } from '../http/app.ts';
import { createMcpServer, httpCaller, injectCaller, type RestCaller } from '../mcp/server.ts';
import { defaultReportSettings } from '../reports/snapshots.ts';
import { cursorSecret } from '../store/settings.ts';
import { openRequestCounters } from './request-counters.ts';
import { onShutdownSignal, openRuntime } from './runtime.ts';

export interface McpOptions {
  /** The API key the tools call with (Authorization: Bearer). */
  apiKey: string;
  /** Base URL of a running jobledger; absent: serve the configured ledger in process. */
  url?: string;
}

/** Thrown when the key is refused before the server starts (the message names the cause). */
export class McpStartError extends Error {}

/**
 * Serve MCP on stdin/stdout until stdin ends or a signal arrives.
 * @throws McpStartError when the key is not accepted (401) or the server cannot be reached.
 */
export async function runMcp(options: McpOptions): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel, base: { service: 'jobledger-mcp' } }, pino.destination(2));
  const closers: Array<() => Promise<void> | void> = [];
  let call: RestCaller;
  if (options.url) {
    call = httpCaller(options.url, options.apiKey);
  } else {
    const { database } = await openRuntime({ applicationName: 'jobledger-mcp', log });
    closers.push(() => database.close());
    const { counters, redis } = await openRequestCounters(config, database, log);
    if (redis) closers.unshift(() => redis.disconnect());
    const app = await buildApp({
      db: database.db,
      log,
      docsUrl: config.docsUrl,
      cursorSecret: await cursorSecret(database.db),
      requestCounters: counters,
      reports: defaultReportSettings(config.reportRefreshSeconds, config.fx.fetch ? config.fx.maxAgeDays : undefined),
      // No blocks of records: an agent's client ends this process as it likes (often by a kill), which
      // would lose the unspent rest of a block every session; one agent's calls are few.
      recordBlocks: { maxBlock: 0, lifetimeSeconds: config.recordBlocks.lifetimeSeconds },
    });
    closers.unshift(() => app.close());
    call = injectCaller(app, `Bearer ${options.apiKey}`);
  }
  const shutdown = async () => {
    for (const close of closers) await close();
  };

  // Refuse a bad key at start, not on every tool call (/v1/me costs no records).
  let me;
  try {
    me = await call('/me');
  } catch (error) {
    await shutdown();
    throw new McpStartError(`cannot reach ${options.url}: ${(error as Error).message}`);
  }
  if (me.status !== 200) {
    await shutdown();
    const body = JSON.parse(me.body) as { error?: string; message?: string };
    throw new McpStartError(`the API key was refused (${me.status} ${body.error ?? ''}: ${body.message ?? ''})`);
  }

  const server = createMcpServer(call);
  const transport = new StdioServerTransport();
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await shutdown();
  };
  // The agent ends the session by closing our stdin.
  process.stdin.on('end', () => void stop());
  onShutdownSignal(log, stop);
  await server.connect(transport);
  log.info({ mode: options.url ? 'http' : 'in process', plan: (JSON.parse(me.body) as { plan?: string }).plan }, 'MCP server ready on stdio');
}
