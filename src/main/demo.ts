/**
 * The demo: the bundled real feeds (`fixtures/`) replayed from a loopback server that answers on the
 * real APIs' paths, so `npm start` imports them through the production connectors and fetcher.
 */
import type { Kysely } from 'kysely';
import type { FetchConfig } from '../config/config.ts';
import { FIXTURES_DIR } from '../ingest/bundled-feeds.ts';
import { startReplayServer, type ReplayServer } from '../ingest/replay-server.ts';
import { createApiKey, type CreatedKey } from '../access/api-keys.ts';
import { findKeyIdByName } from '../store/api-keys.ts';
import type { DB } from '../store/schema.ts';

/** Name of the key the demo creates on its first run. */
const DEMO_KEY_NAME = 'local demo key';
/**
 * The demo key's plan: `scale`, so paging through the whole demo ledger fits its record allowance
 * (the free `explore` plan allows 1,000 records a month, fewer than the demo serves).
 */
export const DEMO_KEY_PLAN = 'scale';

/** Start the replay server and the fetch settings that may reach it (its loopback address and port only). */
export async function startDemoSources(fetch: FetchConfig): Promise<{ replay: ReplayServer; fetch: FetchConfig }> {
  const replay = await startReplayServer({ fixturesDir: FIXTURES_DIR, host: '127.0.0.1', port: 0 });
  return { replay, fetch: { ...fetch, allow: [...fetch.allow, `127.0.0.1:${new URL(replay.url).port}`] } };
}

/** Create the demo key on the first run only; later runs return undefined (the secret is never stored). */
export async function ensureDemoKey(db: Kysely<DB>): Promise<CreatedKey | undefined> {
  if (await findKeyIdByName(db, DEMO_KEY_NAME)) return undefined;
  return createApiKey(db, { planId: DEMO_KEY_PLAN, name: DEMO_KEY_NAME });
}
