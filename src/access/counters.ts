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
  /** The counter's name, part of every stored key. */
  readonly name: string;
  /** The default window, seconds. */
  readonly windowSeconds: number;
  /**
   * On Redis: the in-process counter that answers for this one while Redis is unreachable
   * (rate-limiter-flexible's insurance limiter), for callers that talk to Redis themselves.
   */
  readonly insurance?: WindowCounter;
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

function limiterFor(store: CounterStore, name: string, windowSeconds: number, insurance?: RateLimiterMemory): RateLimiterAbstract {
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
        insuranceLimiter: insurance,
      });
  }
}

function counterOver(limiter: RateLimiterAbstract, name: string, windowSeconds: number, insurance?: WindowCounter): WindowCounter {
  const options = (seconds: number | undefined) => (seconds === undefined ? {} : { customDuration: Math.max(1, Math.ceil(seconds)) });
  return {
    name,
    windowSeconds,
    ...(insurance ? { insurance } : {}),
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

/** A counter named `name` (part of every stored key) with windows of `windowSeconds` by default. */
export function windowCounter(store: CounterStore, name: string, windowSeconds: number): WindowCounter {
  if (store.kind !== 'redis') return counterOver(limiterFor(store, name, windowSeconds), name, windowSeconds);
  const insuranceLimiter = new RateLimiterMemory({ points: COUNTER_CEILING, duration: windowSeconds, keyPrefix: `${store.keyPrefix}:${name}` });
  const insurance = counterOver(insuranceLimiter, name, windowSeconds);
  return counterOver(limiterFor(store, name, windowSeconds, insuranceLimiter), name, windowSeconds, insurance);
}

/** One counter of a {@link LimitedHits.hit}: key `key` of `counter`, its window and its limit. */
export interface LimitedHit {
  /** A counter of {@link windowCounter} on the same store as the {@link limitedHits}. */
  counter: WindowCounter;
  key: string;
  /** The window, seconds; the counter's default when absent. */
  windowSeconds?: number;
  /** The hit is over the limit when the window's count, this hit included, exceeds it. */
  limit: number;
}

/** What {@link LimitedHits.hit} found. */
export interface LimitedHitsResult {
  /** Every hit within its limit: all were counted. Otherwise none was (all taken back). */
  allowed: boolean;
  /** Per hit, in order: the window's count with this hit included, and when it resets. */
  windows: WindowCount[];
}

/**
 * Several windowed counters charged together, all or none: the request limits of a key count a
 * request in its minute and its day windows, and a request refused by either counts in neither.
 */
export interface LimitedHits {
  hit(hits: LimitedHit[]): Promise<LimitedHitsResult>;
}

/**
 * Count every key, then take them all back when one is over its limit, in one Lua script: one Redis
 * round trip per request whether it is allowed or refused (issue 22; it was one round trip per
 * counter, plus one per counter to take a refusal back). The keys and their semantics are those of
 * rate-limiter-flexible's own script (`<prefix>:<name>:<key>`, `SET 0 EX window NX`, `INCR`,
 * `PTTL`), so its `reward` and `get` (used by refunds and peeks) read and write the same counters.
 * ARGV holds, per key, its window in seconds then its limit. With several keys all must live on one
 * node (a single Redis, as deployed; a Redis Cluster would need hash tags).
 */
const LIMITED_HITS_LUA = `
local n = #KEYS
local out = {}
local over = false
for i = 1, n do
  local window = ARGV[2 * i - 1]
  redis.call('set', KEYS[i], 0, 'EX', window, 'NX')
  local count = redis.call('incr', KEYS[i])
  local ttl = redis.call('pttl', KEYS[i])
  if ttl == -1 then
    redis.call('expire', KEYS[i], window)
    ttl = 1000 * tonumber(window)
  end
  out[2 * i - 1] = count
  out[2 * i] = ttl
  if count > tonumber(ARGV[2 * i]) then over = true end
end
if over then
  for i = 1, n do redis.call('decr', KEYS[i]) end
end
return out
`;

interface RedisWithLimitedHits extends Redis {
  jobledgerLimitedHits(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

/** Whole seconds of a window as the counters store it (at least 1). */
function windowSecondsOf(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}

/**
 * Windowed counters charged all or none (see {@link LimitedHits}). On Redis one script per call;
 * when Redis is not ready or a command fails, in-process counters of the same shape answer (fail
 * open, as {@link windowCounter}). Elsewhere the counters are hit together and taken back on refusal.
 */
export function limitedHits(store: CounterStore): LimitedHits {
  // Without Redis, through the counters themselves; on Redis, when it is not ready or a command
  // fails, through their insurance counters: the ones rate-limiter-flexible answers from in the same
  // case, so refunds and peeks through the counters stay consistent with these hits.
  const separately = async (hits: LimitedHit[]): Promise<LimitedHitsResult> => {
    const counters = hits.map((h) => h.counter.insurance ?? h.counter);
    const windows = await Promise.all(hits.map((h, i) => counters[i]!.hit(h.key, h.windowSeconds)));
    const allowed = windows.every((w, i) => w.count <= hits[i]!.limit);
    if (!allowed) await Promise.all(hits.map((h, i) => counters[i]!.undo(h.key, h.windowSeconds)));
    return { allowed, windows };
  };
  if (store.kind !== 'redis') return { hit: separately };
  const client = store.client as RedisWithLimitedHits;
  if (typeof client.jobledgerLimitedHits !== 'function') client.defineCommand('jobledgerLimitedHits', { lua: LIMITED_HITS_LUA });
  return {
    async hit(hits) {
      if (client.status !== 'ready') return separately(hits);
      const keys = hits.map((h) => `${store.keyPrefix}:${h.counter.name}:${h.key}`);
      const args = hits.flatMap((h) => [windowSecondsOf(h.windowSeconds ?? h.counter.windowSeconds), h.limit]);
      let reply: number[];
      try {
        reply = await client.jobledgerLimitedHits(keys.length, ...keys, ...args);
      } catch {
        return separately(hits);
      }
      const windows = hits.map((_, i) => ({ count: Number(reply[2 * i]), msBeforeReset: Math.max(0, Number(reply[2 * i + 1])) }));
      return { allowed: windows.every((w, i) => w.count <= hits[i]!.limit), windows };
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
    // Commands issued in the same event-loop tick (concurrent requests' counters) go out in one write:
    // each command written alone cost a socket write per request, a fifth of a cached keyless
    // answer's CPU (issue 22; bench/README.md). Nothing waits for a batch: it is flushed on the next tick.
    enableAutoPipelining: true,
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
