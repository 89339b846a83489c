/**
 * Where an API process counts requests per key (the per-minute and per-day limits): Redis when
 * REDIS_URL is set (shared by every API process), else PostgreSQL, or this process's memory when
 * JOBLEDGER_REQUEST_COUNTERS=memory. `serve` and `mcp` (in process) open the same store, so a key's
 * limits hold across both.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { connectRedis, waitForRedis, type CounterStore } from '../access/counters.ts';
import type { Config } from '../config/config.ts';
import type { Database } from '../store/database.ts';

/** The counter store of `config`, and the Redis connection it opened (to disconnect on shutdown). */
export async function openRequestCounters(config: Config, database: Database, log: Logger): Promise<{ counters: CounterStore; redis?: Redis }> {
  if (config.redisUrl) {
    const redis = connectRedis(config.redisUrl, log);
    if (!(await waitForRedis(redis))) log.warn('Redis is not answering yet: this process counts requests on its own until it does');
    return { counters: { kind: 'redis', client: redis, keyPrefix: config.redisKeyPrefix }, redis };
  }
  return { counters: config.requestCounters === 'memory' ? { kind: 'memory' } : { kind: 'postgres', pool: database.pool } };
}
