/**
 * The posting-URL probe: asks a posting's own public page whether the vacancy still exists (spec:
 * States and transitions, "vacancy proved dead upstream"). Only a 404 or a 410 from the page itself
 * is proof; anything else (a 200, a redirect to the board, a 5xx, a timeout, a refused address)
 * proves nothing and closes nothing. The fetch goes through the guarded fetcher like every crawl.
 */
import type { Fetcher } from './fetcher.ts';

/** `gone`: the page answered 404 or 410. `present`: it answered 2xx. `unknown`: anything else. */
export type ProbeVerdict = 'gone' | 'present' | 'unknown';

export interface PostingProbe {
  /** Probe one posting URL. Never throws. */
  check(postingUrl: string): Promise<ProbeVerdict>;
}

/** Statuses that prove a posting page gone (RFC 9110: 404 Not Found, 410 Gone). */
export const GONE_STATUSES: readonly number[] = [404, 410];

/**
 * Create a probe over `fetcher`. `rewrite` maps a posting URL to the URL actually fetched; the demo and
 * the tests point it at the loopback replay server's posting pages, production leaves it unset.
 */
export function createPostingProbe(fetcher: Fetcher, options: { rewrite?: (url: string) => string } = {}): PostingProbe {
  return {
    async check(postingUrl: string): Promise<ProbeVerdict> {
      let url: string;
      try {
        url = options.rewrite ? options.rewrite(postingUrl) : postingUrl;
      } catch {
        return 'unknown';
      }
      try {
        const response = await fetcher.get(url, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }, acceptStatuses: [...GONE_STATUSES] });
        if (GONE_STATUSES.includes(response.status)) return 'gone';
        return response.status >= 200 && response.status < 300 ? 'present' : 'unknown';
      } catch {
        // Every fetch failure (timeout, 5xx after retries, refused address) is "we do not know".
        return 'unknown';
      }
    },
  };
}
