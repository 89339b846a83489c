/**
 * The keyless listing cache (issue 22): `/public/jobs` answers kept as their serialized bytes with
 * their `ETag` (`conditional.ts`'s {@link entityTag}, computed once per body), keyed by the
 * normalized query (the parsed listing request, so `?country=de` and `?country=DE` share an entry),
 * in a bounded map of at most `maxEntries` (oldest inserted evicted first).
 *
 * An entry is served only while both hold:
 * - the change feed's watermark (`max(seq)` of `change_events`, one index lookup, read at most once
 *   per `watermarkMaxAgeMs`, default 1 s, per process) is the one it was built under: any recorded
 *   change to the ledger invalidates every entry at once, seen by every process within that second;
 * - it is younger than `ttlMs`: changes that record no change event (a withholding rule, an opt-out)
 *   show within that time, far under the `max-age=300` the answer already allows any cache.
 *
 * Only the database read and the serialization are skipped: the query is still parsed per request
 * (its 400s and `X-Ignored-Params` / `X-Did-You-Mean` headers are the same), the per-address limit
 * still runs before the handler, and a database that cannot answer the watermark fails the request as
 * before (once the last good reading is older than `watermarkMaxAgeMs`). Off unless `serve` (or the bench) turns it on (`AppOptions.keylessPageCache`).
 */
import { entityTag } from './conditional.ts';

/** One cached answer. */
export interface CachedPage {
  /**
   * The JSON body exactly as first served, as UTF-8 bytes: a Buffer goes to the socket as it is, where
   * a string would be encoded again on every hit (a third of the CPU of a hit, issue 22).
   */
  bytes: Buffer;
  /** Its strong entity tag, as `ETag` carries it. */
  etag: string;
  /** The change feed's watermark it was built under. */
  readonly watermark: string;
  /** When it stops being served, `Date.now()` milliseconds. */
  readonly expiresAt: number;
}

/** One reading of the change feed's watermark: `resolved` once it has answered, for {@link KeylessPageCache.isCurrent}. */
interface WatermarkReading {
  value: Promise<string>;
  readAt: number;
  resolved?: string;
}

/** Settings of {@link KeylessPageCache}. */
export interface KeylessPageCacheOptions {
  /** Entries kept at most (default 1,000). */
  maxEntries?: number;
  /** Lifetime of an entry, milliseconds (default 5,000). */
  ttlMs?: number;
  /** How long a watermark reading is reused, milliseconds (default 1,000; 0: read per request). */
  watermarkMaxAgeMs?: number;
}

export class KeylessPageCache {
  readonly #entries = new Map<string, CachedPage>();
  /** The entry each request was answered with (keyless-front-cache.ts stores the response beside it). */
  readonly #servedTo = new WeakMap<object, CachedPage>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;
  readonly #watermarkMaxAgeMs: number;
  /** The last watermark reading (or the one under way, shared by concurrent requests). */
  #watermark: WatermarkReading | undefined;

  constructor(options: KeylessPageCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? 1000;
    this.#ttlMs = options.ttlMs ?? 5000;
    this.#watermarkMaxAgeMs = options.watermarkMaxAgeMs ?? 1000;
  }

  /** The watermark, read through `read` unless a reading younger than its maximum age exists. */
  async #currentWatermark(read: () => Promise<string>, now: number): Promise<string> {
    const last = this.#watermark;
    if (last && now - last.readAt < this.#watermarkMaxAgeMs) return last.value;
    const reading: WatermarkReading = { value: read(), readAt: now };
    this.#watermark = reading;
    try {
      reading.resolved = await reading.value;
      return reading.resolved;
    } catch (error) {
      // A failed reading is never reused: the next request reads again.
      if (this.#watermark === reading) this.#watermark = undefined;
      throw error;
    }
  }

  /**
   * Whether `page` would be served now without reading anything: the last watermark reading has
   * answered, is younger than its maximum age and is the one `page` was built under, and `page` has
   * not expired. False whenever {@link KeylessPageCache.serve} would read the watermark first, so a
   * caller that answers on true (keyless-front-cache.ts) never serves what `serve` would not.
   */
  isCurrent(page: CachedPage, now: number = Date.now()): boolean {
    const reading = this.#watermark;
    return reading !== undefined && now - reading.readAt < this.#watermarkMaxAgeMs && reading.resolved === page.watermark && page.expiresAt > now;
  }

  /** The entry {@link KeylessPageCache.serve} answered `request` with, if it did. */
  pageServedTo(request: object): CachedPage | undefined {
    return this.#servedTo.get(request);
  }

  /** Entries held now (tests, metrics). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The answer for `key`: the cached one when built under the current watermark (`readWatermark`,
   * see {@link KeylessPageCacheOptions.watermarkMaxAgeMs}) and young enough, else `build()`'s bytes,
   * stored. `readWatermark` and `build` throw as the handler would; nothing is stored then. `request`
   * (the raw request answered) is remembered with the entry, for {@link KeylessPageCache.pageServedTo}.
   */
  async serve(key: string, readWatermark: () => Promise<string>, build: () => Promise<string>, now: number = Date.now(), request?: object): Promise<CachedPage> {
    const watermark = await this.#currentWatermark(readWatermark, now);
    const hit = this.#entries.get(key);
    if (hit && hit.watermark === watermark && hit.expiresAt > now) {
      if (request) this.#servedTo.set(request, hit);
      return hit;
    }
    const body = await build();
    const entry: CachedPage = { bytes: Buffer.from(body, 'utf8'), etag: entityTag(body), watermark, expiresAt: now + this.#ttlMs };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    if (request) this.#servedTo.set(request, entry);
    return entry;
  }
}
