/**
 * The spec's client retry rules (spec: Errors, "Client retry rules"): retry only 429 and 503, honour
 * `Retry-After` with jitter, cap attempts (3 to 5). Never retry 401, 402, 403, 422 or 500, nor a
 * request that failed without an answer (the rules are about answers; a resumable export resumes on
 * its own, see export-reader.ts).
 */

/** How a client retries. Every field has a default. */
export interface RetryPolicy {
  /**
   * Attempts in all, the first included: 1 turns retrying off. Default 4; the spec asks for 3 to 5,
   * values outside 1 to 5 are clamped.
   */
  maxAttempts?: number;
  /**
   * Longest wait before a retry, in milliseconds (default 60 000). A `Retry-After` beyond it (a daily
   * request limit answers with the seconds until UTC midnight) is not waited for: the 429 is returned.
   */
  maxDelayMs?: number;
  /** Upper bound of the random delay added to `Retry-After`, in milliseconds (default 1 000). */
  jitterMs?: number;
  /** Wait before the first retry when the answer has no `Retry-After`, doubled per attempt (default 500 ms). */
  baseDelayMs?: number;
  /** Called before each wait: the status that caused it, the attempt that failed (1-based) and the wait in ms. */
  onRetry?: (event: { status: number; attempt: number; delayMs: number; url: string }) => void;
}

/** The statuses the spec allows a client to retry. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

const DEFAULTS = { maxAttempts: 4, maxDelayMs: 60_000, jitterMs: 1_000, baseDelayMs: 500 };

/** A fetch function as openapi-fetch and the export reader call it. */
export type FetchLike = (input: Request) => Promise<Response>;

/**
 * Seconds of a `Retry-After` value (delta-seconds or an HTTP-date, RFC 9110 §10.2.3) as milliseconds
 * from `now`; undefined when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt` (1-based: the attempt that just failed), or undefined when
 * the rules say not to retry: `Retry-After` plus up to `jitterMs` of random delay, or without it an
 * exponential backoff with full jitter.
 */
export function retryDelayMs(response: Response, attempt: number, policy: RetryPolicy = {}): number | undefined {
  const p = { ...DEFAULTS, ...policy };
  const maxAttempts = Math.min(5, Math.max(1, Math.floor(p.maxAttempts)));
  if (!RETRYABLE_STATUSES.has(response.status) || attempt >= maxAttempts) return undefined;
  const stated = retryAfterMs(response.headers.get('retry-after'));
  const delay = stated !== undefined ? stated + Math.random() * p.jitterMs : Math.random() * p.baseDelayMs * 2 ** (attempt - 1);
  return delay > p.maxDelayMs ? undefined : Math.round(delay);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `fetchImpl` wrapped with the retry rules. Each retry sends a fresh clone of the request; the
 * abandoned answer's body is discarded. An abort of the request's signal ends the wait.
 */
export function retryingFetch(fetchImpl: FetchLike, policy: RetryPolicy = {}): FetchLike {
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      const response = await fetchImpl(request.clone());
      const delay = retryDelayMs(response, attempt, policy);
      if (delay === undefined) return response;
      policy.onRetry?.({ status: response.status, attempt, delayMs: delay, url: request.url });
      await response.body?.cancel();
      await sleep(delay, request.signal);
    }
  };
}
