/**
 * A bounded memo for pure enrichment functions whose inputs repeat across postings: a board lists
 * the same location ("San Francisco, CA") and the same titles ("Enterprise Account Executive") many
 * times, and a recrawl repeats them all. Measured by `npm run eval:enrich` (Throughput).
 *
 * Values are shared between callers and must be treated as immutable. When the memo holds `limit`
 * entries it is emptied and starts again: simpler than LRU bookkeeping and, for inputs that repeat
 * within a crawl, just as effective.
 */
export interface Memo<V> {
  /** The value for `key`, computing and remembering it with `compute` on a miss. */
  get(key: string, compute: () => V): V;
}

/** Create a memo holding at most `limit` entries (a positive integer). */
export function boundedMemo<V>(limit: number): Memo<V> {
  const entries = new Map<string, V>();
  return {
    get(key, compute) {
      const hit = entries.get(key);
      if (hit !== undefined || entries.has(key)) return hit as V;
      const value = compute();
      if (entries.size >= limit) entries.clear();
      entries.set(key, value);
      return value;
    },
  };
}
