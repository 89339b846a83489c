/**
 * The key cache (issue 22): what a keyed request's authentication reads (the key row, its plan and
 * paid term: `findKeyWithPlan`), kept in this process for at most {@link KEY_CACHE_TTL_MS} so a busy
 * key costs no database statement per request.
 *
 * An entry is trusted only while the key-change signal (store/key-changes.ts) is live and has not
 * moved since the entry was read: a revocation, rotation, plan change or subscription change anywhere
 * notifies every process at commit, so a revoked or rotated-away key is refused by every process at
 * once, and at worst (the signal's session down, a notification late) within the TTL. A change made
 * through this process's own `rotateApiKey`/`revokeApiKey` also invalidates at once, without waiting
 * for the notification. The plan a key holds can depend on the clock (a paid term lapsing): the TTL
 * bounds that too. Only found keys are kept (an unknown prefix is read every time, so guessed
 * prefixes cannot fill memory), at most {@link KEY_CACHE_MAX_ENTRIES}. Secrets are never kept: the
 * presented secret is compared with the row's hash on every request, as without the cache.
 */
import type { Kysely } from 'kysely';
import { findKeyWithPlan } from '../store/api-keys.ts';
import type { KeyChangeSignal } from '../store/key-changes.ts';
import type { DB } from '../store/schema.ts';

/** Longest time an entry is trusted, ms ("a revoked key is refused by every process within a second"). */
export const KEY_CACHE_TTL_MS = 1_000;
/** Most keys kept; the cache starts over when full. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;

type KeyWithPlan = NonNullable<Awaited<ReturnType<typeof findKeyWithPlan>>>;

/** Moves on when this process changes a key itself (see the module comment). */
let localGeneration = 0;

/** Tell every key cache of this process that a key changed (called by the key mutations). */
export function noteKeyChanged(): void {
  localGeneration++;
}

/** A per-process cache of key lookups, invalidated by `signal`. */
export class KeyCache {
  readonly #entries = new Map<string, { row: KeyWithPlan; generation: number; local: number; readAt: number }>();
  readonly #signal: KeyChangeSignal;

  constructor(signal: KeyChangeSignal) {
    this.#signal = signal;
  }

  /** `findKeyWithPlan(db, keyPrefix, now)`, from the cache when an entry is still trusted. */
  async find(db: Kysely<DB>, keyPrefix: string, now: Date): Promise<KeyWithPlan | undefined> {
    const signal = this.#signal;
    const at = performance.now();
    const hit = this.#entries.get(keyPrefix);
    if (hit && signal.live && hit.generation === signal.generation && hit.local === localGeneration && at - hit.readAt < KEY_CACHE_TTL_MS) return hit.row;
    // Generations are taken before the read: a change that commits while it runs invalidates what it returns.
    const generation = signal.generation;
    const local = localGeneration;
    const row = await findKeyWithPlan(db, keyPrefix, now);
    if (row && signal.live) {
      if (this.#entries.size >= KEY_CACHE_MAX_ENTRIES) this.#entries.clear();
      this.#entries.set(keyPrefix, { row, generation, local, readAt: at });
    } else {
      this.#entries.delete(keyPrefix);
    }
    return row;
  }
}
