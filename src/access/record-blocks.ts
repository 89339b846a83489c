/**
 * The record meter off the hot path (issue 22): each API process takes BLOCKS of a key's monthly
 * records from the durable meter (`record_usage`, one write per block), serves requests from its
 * block in memory, and gives the unspent rest back when the block expires, at shutdown, and in the
 * background. The durable `used` counts a block in full from the moment it is taken, so:
 *
 * - nothing is ever over-served: a process serves only records the durable meter already charged,
 *   and the meter never charges past the limit (the take runs under the row lock);
 * - a crash (SIGKILL, power loss) loses at most the unspent rest of the blocks that process held:
 *   records counted as used that were never served. Nothing to reconcile afterwards.
 *
 * Near the end of an allowance blocks shrink and then stop: a block is never more than
 * 1/{@link BLOCK_SHARE} of what remains, and below {@link minBlock} records (or below what the
 * request needs) the process reserves exactly what each request needs, one write per request as
 * before, so the last records are not stranded in another process's block and "exactly 50 left →
 * exactly 50 served, then 402" holds across processes. The last block taken before that point (none
 * would follow it) is given back after about a second rather than its lifetime. Unused records of an exact reservation go
 * straight back to the durable meter; unused records of a block go back to the block.
 *
 * Keys without an allowance (country-locked keys: records counted, never refused) take no blocks at
 * all: what they serve is added up in memory and written once a second per key (a crash loses at
 * most that second's count, never a refusal).
 *
 * The headers' view (docs/metering.md): `used` = the durable meter as this process last saw it,
 * minus the block records this process holds unspent for the key, i.e. records served or in flight
 * as far as this process knows; `remaining` = limit − used, which is exactly what this process can
 * still grant (its block plus what the durable meter has left).
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { recordsUsed, releaseRecords, reserveRecords, takeRecords } from '../store/record-usage.ts';
import type { DB } from '../store/schema.ts';

/** Block settings (config: `JOBLEDGER_RECORD_BLOCK`, `JOBLEDGER_RECORD_BLOCK_SECONDS`). */
export interface RecordBlockSettings {
  /** Largest block in records; 0 turns blocks off (every reservation is written at once). */
  maxBlock: number;
  /** Seconds a block is served from before its unspent rest goes back to the durable meter. */
  lifetimeSeconds: number;
}

/** Defaults of {@link RecordBlockSettings}: the config's defaults and what tests' apps run with. */
export const DEFAULT_RECORD_BLOCKS: RecordBlockSettings = { maxBlock: 2000, lifetimeSeconds: 10 };

/**
 * A block is at most 1/8 of the records that remain when it is taken: with P processes taking
 * blocks in turn, what they hold together stays a fraction of what is left (1 − (7/8)^P), and the
 * share shrinks with the allowance.
 */
export const BLOCK_SHARE = 8;

/** How often (ms) counts of unlimited keys are written and expired blocks given back. */
const TICK_MS = 1000;

/**
 * Age (ms) after which a block is given back once no further block would be taken for its key (the
 * end of the allowance): other processes then reserve exactly, and what this block holds is the only
 * thing that can strand records, so it is held about a second (given back at the next tick after).
 */
const END_GAME_MS = 1000;

/**
 * The smallest block worth holding: a tenth of the largest (200 records by default, one full page
 * at the largest page size). A smaller block would save few writes while keeping records from other
 * processes, so below it every request reserves exactly. It also means an allowance of under
 * `BLOCK_SHARE × minBlock` records left (1,600 by default; the 1,000-record explore plan always) is
 * metered exactly.
 */
export function minBlock(maxBlock: number): number {
  return Math.max(1, Math.ceil(maxBlock / 10));
}

/**
 * Records of the block to take when `remaining` records are left (limit − durable used), or 0 when
 * no block should be taken (reserve exactly instead).
 */
export function blockSize(remaining: number, maxBlock: number): number {
  if (maxBlock <= 0) return 0;
  const size = Math.min(maxBlock, Math.floor(remaining / BLOCK_SHARE));
  return size >= minBlock(maxBlock) ? size : 0;
}

/** Records one reservation of a request was granted, by where they came from. */
export interface Grant {
  /** From this process's block (an unlimited key's records, when counted in memory, too). */
  block: number;
  /** Reserved in the durable meter for this request alone. */
  exact: number;
}

/**
 * One key's records in one month as this process holds them. Handed to each request of the key
 * (access/record-allowance.ts); every field is this process's knowledge only.
 */
export class HeldRecords {
  readonly keyId: string;
  readonly period: string;
  /** Records per month; null: unlimited (counted, never refused). */
  readonly limit: number | null;
  readonly #owner: RecordBlocks;
  /** Block records held and not handed to a request. */
  #available = 0;
  /** When the records in #available were taken (performance.now() ms). */
  #takenAt = 0;
  /** The durable meter's `used` as last seen; undefined before the first read or write. */
  #durable: number | undefined;
  /** The last durable figure left too little for a block: reserve exactly. */
  #exact = false;
  /** A block being taken: requests of the key wait for it rather than take blocks of their own. */
  #refill: Promise<unknown> | null = null;
  /** Durable-meter writes in flight (block take, give-back, count flush): reads do not override them. */
  #writing = 0;
  /** Unlimited keys: records served, not yet written; and being written. */
  #pending = 0;
  #flushing = 0;
  #lastUse = performance.now();

  constructor(owner: RecordBlocks, keyId: string, period: string, limit: number | null) {
    this.#owner = owner;
    this.keyId = keyId;
    this.period = period;
    this.limit = limit;
    // An allowance too small for a block even when unused (the explore plan's 1,000) is exact from the start.
    this.#exact = limit !== null && blockSize(limit, owner.settings.maxBlock) === 0;
  }

  /** Whether the durable figure is known (else {@link read} before reporting {@link used}). */
  get known(): boolean {
    return this.#durable !== undefined;
  }

  /**
   * Records used this month as this process knows them: the durable figure minus this process's
   * unspent block records (limited keys), or plus its unwritten counts (unlimited keys).
   */
  get used(): number {
    const durable = this.#durable ?? 0;
    return this.limit === null ? durable + this.#pending + this.#flushing : Math.max(0, durable - this.#available);
  }

  /** Read the durable meter (a SELECT); kept only when no write of this process is in flight. */
  async read(): Promise<void> {
    const used = await recordsUsed(this.#owner.db, this.keyId, this.period);
    if (this.#writing === 0 || this.#durable === undefined) this.#durable = used;
  }

  /**
   * Grant up to `wanted` records of a limited key: from the block when it covers them (no I/O),
   * else after taking a block, else (near the end of the allowance) exactly, in the durable meter.
   * Returns the grant; both parts 0 when nothing remains.
   */
  async reserve(wanted: number): Promise<Grant> {
    const limit = this.limit;
    this.#touch();
    if (limit === null) {
      if (this.#owner.settings.maxBlock > 0) return { block: wanted, exact: 0 };
      // No blocks: counted at once, as a reservation (given back if not served).
      const counted = await this.#write(() => reserveRecords(this.#owner.db, this.keyId, this.period, wanted, null));
      this.#durable = counted.used;
      return { block: 0, exact: wanted };
    }
    for (;;) {
      if (this.#available >= wanted) {
        this.#available -= wanted;
        return { block: wanted, exact: 0 };
      }
      if (this.#refill) {
        // Another request of this key is taking a block; if it fails, this one tries on its own.
        await this.#refill.catch(() => undefined);
        continue;
      }
      if (this.#exact || this.#owner.settings.maxBlock <= 0) break;
      const take = this.#write(() => takeRecords(this.#owner.db, this.keyId, this.period, wanted - this.#available, limit, (left) => blockSize(left, this.#owner.settings.maxBlock)));
      this.#refill = take;
      let taken;
      try {
        taken = await take;
      } finally {
        this.#refill = null;
      }
      this.#durable = taken.used;
      if (taken.block) {
        if (this.#available === 0) this.#takenAt = performance.now();
        this.#available += taken.granted;
        // The last block: what remains after it is metered exactly, and the block goes back soon.
        this.#exact = blockSize(limit - taken.used, this.#owner.settings.maxBlock) === 0;
        continue;
      }
      // No block could be taken: the take reserved this request's records exactly.
      this.#exact = true;
      return { block: this.#drain(), exact: taken.granted };
    }
    const local = this.#drain();
    let reserved;
    try {
      reserved = await this.#write(() => reserveRecords(this.#owner.db, this.keyId, this.period, wanted - local, limit));
    } catch (error) {
      this.#available += local;
      throw error;
    }
    this.#durable = reserved.used;
    this.#exact = blockSize(limit - reserved.used, this.#owner.settings.maxBlock) === 0;
    return { block: local, exact: reserved.granted };
  }

  /**
   * Give back a request's unused records: `exact` ones to the durable meter at once (so other
   * processes can grant them), `block` ones to this process's block (an unlimited key's were never
   * counted).
   */
  async giveBack(unused: Grant): Promise<void> {
    if (unused.block > 0 && this.limit !== null) {
      if (this.#available === 0) this.#takenAt = performance.now();
      this.#available += unused.block;
      this.#owner.adopt(this);
    }
    if (unused.exact > 0) {
      const used = await this.#write(() => releaseRecords(this.#owner.db, this.keyId, this.period, unused.exact));
      this.#durable = used;
      if (this.limit !== null) this.#exact = blockSize(this.limit - used, this.#owner.settings.maxBlock) === 0;
    }
  }

  /** Unlimited keys: `served` records granted as `block` were served; written with the next flush. */
  count(served: number): void {
    if (this.limit !== null || served <= 0) return;
    this.#pending += served;
    this.#touch();
    this.#owner.adopt(this);
  }

  /**
   * Background work: write unwritten counts, and give back the block when it is older than
   * `maxAgeMs` (0: whatever its age). Failures are kept for the next attempt and rethrown.
   */
  async settle(maxAgeMs: number): Promise<void> {
    if (this.#pending > 0 && this.#flushing === 0) {
      const count = this.#pending;
      this.#pending = 0;
      this.#flushing = count;
      try {
        const counted = await this.#write(() => reserveRecords(this.#owner.db, this.keyId, this.period, count, null));
        this.#durable = counted.used;
      } catch (error) {
        this.#pending += count;
        throw error;
      } finally {
        this.#flushing = 0;
      }
    }
    // Near the end of the allowance other processes reserve exactly and may run dry while this block
    // holds records: it goes back within a second or two instead of a lifetime.
    const maxAge = this.#exact ? Math.min(maxAgeMs, END_GAME_MS) : maxAgeMs;
    if (this.#available > 0 && !this.#refill && performance.now() - this.#takenAt >= maxAge) {
      const unspent = this.#available;
      this.#available = 0;
      try {
        this.#durable = await this.#write(() => releaseRecords(this.#owner.db, this.keyId, this.period, unspent));
      } catch (error) {
        this.#available += unspent;
        throw error;
      }
      if (this.limit !== null) this.#exact = blockSize(this.limit - this.#durable, this.#owner.settings.maxBlock) === 0;
    }
  }

  /** Nothing held, nothing to write, unused for `idleMs`: the holding may be forgotten. */
  idle(idleMs: number): boolean {
    return this.#available === 0 && this.#pending === 0 && this.#flushing === 0 && this.#writing === 0 && performance.now() - this.#lastUse >= idleMs;
  }

  #touch(): void {
    this.#lastUse = performance.now();
  }

  #drain(): number {
    const local = this.#available;
    this.#available = 0;
    return local;
  }

  async #write<T>(run: () => Promise<T>): Promise<T> {
    this.#writing++;
    try {
      return await run();
    } finally {
      this.#writing--;
    }
  }
}

/**
 * The blocks of one API process, per key, month and limit. {@link start} runs the background
 * settlement; {@link close} (the app's onClose) gives every block back and writes every count.
 */
export class RecordBlocks {
  readonly db: Kysely<DB>;
  readonly settings: RecordBlockSettings;
  readonly #log: Logger;
  readonly #held = new Map<string, HeldRecords>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;

  constructor(db: Kysely<DB>, log: Logger, settings: RecordBlockSettings = DEFAULT_RECORD_BLOCKS) {
    this.db = db;
    this.#log = log;
    this.settings = settings;
  }

  /** The records of key `keyId` in the month `period` (`YYYY-MM-01`) under `limit` (null: unlimited). */
  holding(keyId: string, period: string, limit: number | null): HeldRecords {
    const id = `${keyId}|${period}|${limit ?? 'unlimited'}`;
    let held = this.#held.get(id);
    if (!held) {
      held = new HeldRecords(this, keyId, period, limit);
      this.#held.set(id, held);
    }
    return held;
  }

  /** Keep `held` in the settlement set (records came back to a holding forgotten meanwhile). */
  adopt(held: HeldRecords): void {
    const id = `${held.keyId}|${held.period}|${held.limit ?? 'unlimited'}`;
    const current = this.#held.get(id);
    if (current === held) return;
    if (!current) this.#held.set(id, held);
    // A newer holding took the slot: settle this one on its own, now.
    else void held.settle(0).catch((error: unknown) => this.#log.error({ err: error }, 'could not give back a block of records'));
  }

  /** Start the background settlement (once a second; does not keep the process alive). */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (!this.#ticking) this.#ticking = this.#settleAll(this.settings.lifetimeSeconds * 1000).finally(() => (this.#ticking = undefined));
    }, TICK_MS);
    this.#timer.unref();
  }

  /** Stop the background settlement and give back every block, write every count. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#ticking;
    await this.#settleAll(0);
  }

  async #settleAll(maxAgeMs: number): Promise<void> {
    const idleMs = Math.max(60_000, this.settings.lifetimeSeconds * 2000);
    for (const [id, held] of this.#held) {
      try {
        await held.settle(maxAgeMs);
      } catch (error) {
        this.#log.error({ err: error, keyId: held.keyId }, 'could not settle records with the durable meter; retrying');
        continue;
      }
      if (held.idle(idleMs)) this.#held.delete(id);
    }
  }
}
