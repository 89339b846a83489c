/**
 * A value computed from the ledger and kept for a while: reports whose exact figures may lag the
 * ledger by a few minutes (spec: GET /v1/meta/facets counts "may come from a snapshot refreshed every
 * few minutes"). Each API process keeps its own copy.
 *
 * Reads never wait for a refresh once a first value exists: a reader that finds the value older than
 * `maxAgeMs` gets it as it is and starts one refresh in the background (stale-while-revalidate), so
 * at most one computation runs at a time per process. A failed background refresh keeps the old value
 * and is retried by the next reader.
 */

/** A computed value and when it was measured. */
export interface Snapshot<T> {
  value: T;
  /** When the computation that produced `value` started. */
  measuredAt: Date;
}

export interface SnapshotOptions {
  /** Age after which a read starts a refresh, milliseconds. */
  maxAgeMs: number;
  /** Told about a background refresh that failed (the old value stays). */
  onError?: (error: unknown) => void;
}

export interface RefreshingSnapshot<T> {
  /**
   * The current value; the first call waits for the first computation.
   * @throws whatever the first computation threw (later failures keep the previous value).
   */
  get(): Promise<Snapshot<T>>;
  /** Compute now (joining a computation already running) and keep the result. */
  refresh(): Promise<Snapshot<T>>;
}

/** Keep `compute()`'s result, refreshed when older than `maxAgeMs`. */
export function refreshingSnapshot<T>(compute: () => Promise<T>, options: SnapshotOptions): RefreshingSnapshot<T> {
  let current: Snapshot<T> | undefined;
  let running: Promise<Snapshot<T>> | undefined;

  const refresh = (): Promise<Snapshot<T>> => {
    if (!running) {
      const measuredAt = new Date();
      running = compute()
        .then((value) => {
          current = { value, measuredAt };
          return current;
        })
        .finally(() => {
          running = undefined;
        });
    }
    return running;
  };

  return {
    async get() {
      if (!current) return refresh();
      if (Date.now() - current.measuredAt.getTime() > options.maxAgeMs) {
        refresh().catch((error: unknown) => options.onError?.(error));
      }
      return current;
    },
    refresh,
  };
}
