/**
 * Atomic windowed counters for request limits, on Redis, PostgreSQL or in process, through
 * rate-limiter-flexible (ARCHITECTURE "Meters are atomic"). A counter only counts: it adds a hit and
 * answers "this is hit number N of the window, which resets in M ms". The limit policy (how many hits
 * a key may make, what a refusal charges) belongs to the callers (`request-limits.ts`,
 * `keyless-limit.ts`), because limits differ per plan while the counters are shared.
 *
 * Where the counters live:
 * - `redis`: shared by every API process (REDIS_URL). When Redis is unreachable or slow the counter
 *   falls back to an in-process one (rate-limiter-flexible's insurance limiter): requests keep being
 *   served and limited per process — fail open, documented in docs/metering.md.
 * - `postgres`: shared by every API process on the same database (table `request_counters`).
 * - `memory`: one process only.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { Redis as RedisClient } from 'ioredis';
import type pg from 'pg';
import type { Logger } from 'pino';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

/** Where request counters live. */
export type CounterStore =
  | { kind: 'memory' }
  | { kind: 'postgres'; pool: pg.Pool }
  /** `keyPrefix` namespaces every Redis key, so services (or test runs) sharing a Redis never collide. */
  | { kind: 'redis'; client: Redis; keyPrefix: string };

/** One window's state after a hit. */
export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  msBeforeReset: number;
}

export interface WindowCounter {
  /**
   * Count one hit on `key`. A key's window starts at its first hit and lasts `windowSeconds` (or the
   * counter's default).
   */
  hit(key: string, windowSeconds?: number): Promise<WindowCount>;
  /** Take one hit back: a refused request charges nothing. */
  undo(key: string, windowSeconds?: number): Promise<void>;
  /** The current window without counting; `count` 0 when the key has no window running. */
  peek(key: string): Promise<WindowCount>;
}

/**
 * The counters' ceiling, far above any plan: rate-limiter-flexible would refuse on its own past its
 * `points`, and we want it to count while our policy decides. Fits PostgreSQL's `integer` column.
 */
const COUNTER_CEILING = 2_000_000_000;
/** Table of the PostgreSQL store (migration 005). */
const POSTGRES_TABLE = 'request_counters';

function limiterFor(store: CounterStore, name: string, windowSeconds: number): RateLimiterAbstract {
  const base = { points: COUNTER_CEILING, duration: windowSeconds };
  switch (store.kind) {
    case 'memory':
      return new RateLimiterMemory({ ...base, keyPrefix: name });
    case 'postgres':
      return new RateLimiterPostgres({
        ...base,
        keyPrefix: name,
        storeClient: store.pool,
        storeType: 'pool',
        tableName: POSTGRES_TABLE,
        // Created by migration 005, so no process needs DDL rights at run time.
        tableCreated: true,
      });
    case 'redis':
      return new RateLimiterRedis({
        ...base,
        keyPrefix: `${store.keyPrefix}:${name}`,
        storeClient: store.client,
        // Fail open: an unreachable Redis hands the count to an in-process counter of the same shape.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new RateLimiterMemory({ ...base, keyPrefix: `${store.keyPrefix}:${name}` }),
      });
  }
}

/** A counter named `name` (part of every stored key) with windows of `windowSeconds` by default. */
export function windowCounter(store: CounterStore, name: string, windowSeconds: number): WindowCounter {
  const limiter = limiterFor(store, name, windowSeconds);
  const options = (seconds: number | undefined) => (seconds === undefined ? {} : { customDuration: Math.max(1, Math.ceil(seconds)) });
  return {
    async hit(key, seconds) {
      const res = await limiter.consume(key, 1, options(seconds));
      return { count: res.consumedPoints, msBeforeReset: Math.max(0, res.msBeforeNext) };
    },
    async undo(key, seconds) {
      await limiter.reward(key, 1, options(seconds));
    },
    async peek(key) {
      const res = await limiter.get(key);
      if (!res) return { count: 0, msBeforeReset: windowSeconds * 1000 };
      return { count: Math.max(0, res.consumedPoints), msBeforeReset: Math.max(0, res.msBeforeNext) };
    },
  };
}

/**
 * Wait until `client` is ready, at most `timeoutMs`; returns whether it is. A server starts serving
 * either way (fail open), but counting in Redis from the first request keeps the processes in step.
 */
export async function waitForRedis(client: Redis, timeoutMs = 3000): Promise<boolean> {
  if (client.status === 'ready') return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(false), timeoutMs);
    const onReady = () => done(true);
    function done(ready: boolean) {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    }
    client.on('ready', onReady);
  });
}

/**
 * Milliseconds a Redis command may take before the in-process fallback answers instead. Redis answers
 * in well under a millisecond on a healthy network; a stuck one must not hold requests for long.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * A Redis client for request counters, set up to fail fast: no offline queue (a command while
 * disconnected fails at once and the in-process fallback answers), a per-command timeout, and endless
 * background reconnection. Connection errors are logged once per outage, never per request.
 */
export function connectRedis(url: string, log: Logger, options: RedisOptions = {}): Redis {
  const client = new RedisClient(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 5000),
    ...options,
  });
  let down = false;
  client.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log.warn({ err: { message: error.message } }, 'Redis unreachable: request counters fall back to this process until it answers again');
  });
  client.on('ready', () => {
    if (down) log.info('Redis reachable again: request counters are shared again');
    down = false;
  });
  return client;
}
