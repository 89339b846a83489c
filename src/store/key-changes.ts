/**
 * The key-change signal (issue 22): one dedicated PostgreSQL session per API process that LISTENs on
 * the channel migration 020's triggers notify whenever a key, a subscription or a plan changes. The
 * process's key cache (access/key-cache.ts) trusts an entry only while this session is up and no
 * notification arrived since the entry was read.
 *
 * While the session is down (a restart, a failover, a network cut) `live` is false and the cache reads
 * every key from the database, as without a cache; the session is reopened every
 * {@link RECONNECT_MS}. A notification lost with a broken session does not matter: the generation moves
 * on when the session breaks, so nothing read before the break is trusted again.
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** The channel of migration 020's triggers. */
export const KEY_CHANGES_CHANNEL = 'jobledger_key_changes';

const RECONNECT_MS = 1_000;

/** What a key cache needs to know: whether it may trust what it read, and whether anything changed since. */
export interface KeyChangeSignal {
  /** True while the listening session is up. */
  readonly live: boolean;
  /** Moves on with every notification and every loss or return of the session. */
  readonly generation: number;
}

/** A running listener; `close()` ends its session and stops reconnecting. */
export interface KeyChangeListener extends KeyChangeSignal {
  /** Resolves once the session listens (or failed its first attempt: then it keeps retrying). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listen for key changes on the database at `connectionString`.
 * @param log told when the session is lost (warn) and comes back (info).
 */
export function listenForKeyChanges(connectionString: string, log?: Logger): KeyChangeListener {
  let client: pg.Client | undefined;
  let live = false;
  let generation = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const lost = (client_: pg.Client, error?: Error) => {
    if (client !== client_) return;
    client = undefined;
    if (live) log?.warn({ component: 'key-changes', err: error ? { message: error.message } : undefined }, 'key-change session lost; keys are read from the database until it is back');
    live = false;
    generation++;
    if (!closed) timer = setTimeout(() => void open(), RECONNECT_MS);
  };

  const open = async (): Promise<void> => {
    const c = new pg.Client({ connectionString, application_name: 'jobledger-key-changes' });
    client = c;
    c.on('error', (error) => lost(c, error));
    c.on('end', () => lost(c));
    c.on('notification', (message) => {
      if (message.channel === KEY_CHANGES_CHANNEL) generation++;
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${KEY_CHANGES_CHANNEL}`);
      if (closed || client !== c) {
        await c.end().catch(() => undefined);
        return;
      }
      generation++;
      live = true;
    } catch (error) {
      lost(c, error as Error);
      await c.end().catch(() => undefined);
    }
  };

  const ready = open();
  return {
    get live() {
      return live;
    },
    get generation() {
      return generation;
    },
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      const c = client;
      client = undefined;
      live = false;
      generation++;
      await c?.end().catch(() => undefined);
    },
  };
}
