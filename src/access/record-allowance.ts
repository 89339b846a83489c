/**
 * The monthly record allowance of one key during one request (spec: Limits › Metering rules items 1,
 * 2 and 4): one record per job row (or company row, or export line) served, reset on the 1st of the
 * month (UTC), 402 `record_quota_exhausted` when spent. It implements the HTTP layer's `RecordMeter`
 * contract (`src/http/record-meter.ts`): routes reserve before querying, serve at most what was
 * granted, and settle with what they served.
 *
 * Decisions (docs/metering.md):
 * - The last page is cut to what remains: with 10 records left, `limit=25` serves 10 rows with
 *   `has_more` true and `X-RateLimit-Records-Remaining: 0`; the next page is a 402.
 * - The month is the one the request started in, for all of its reservations.
 * - A country-locked key has no allowance (limit null): its records are counted, never refused.
 * - The meter never fails open: when PostgreSQL cannot record a reservation the request fails (503).
 * - Records come from this process's block of the key's records when it holds one (issue 22,
 *   record-blocks.ts): no database write per request; near the end of the allowance, exactly.
 */
import { ApiError } from '../domain/errors.ts';
import type { Grant, HeldRecords, RecordBlocks } from './record-blocks.ts';
import { nextUtcMonthStart, utcDay, utcMonthStart } from './periods.ts';

/** The allowance as the response headers report it. */
export interface RecordAllowanceState {
  /** Records per month; null = unlimited. */
  limit: number | null;
  /** Records used this month as this process knows them (record-blocks.ts, docs/metering.md). */
  used: number;
  /** null = unlimited. */
  remaining: number | null;
}

export class RecordAllowance {
  readonly #held: HeldRecords;
  readonly #limit: number | null;
  readonly #resetsOn: string;
  /** Granted and neither served nor given back, by origin. */
  #outstanding: Grant = { block: 0, exact: 0 };
  #exhausted = false;
  /** Whether this request reserved (its holding's figure is then current). */
  #reserved = false;
  #read = false;

  /**
   * @param blocks this process's record blocks (record-blocks.ts)
   * @param limit records per month, or null for an unmetered (country-locked) key
   * @param now the request's start: it fixes the month charged
   */
  constructor(blocks: RecordBlocks, keyId: string, limit: number | null, now: Date) {
    this.#limit = limit;
    this.#held = blocks.holding(keyId, utcMonthStart(now), limit);
    this.#resetsOn = utcDay(nextUtcMonthStart(now));
  }

  /** Read the month's usage from the durable meter (for the headers of requests that reserve nothing). */
  async load(): Promise<void> {
    await this.#held.read();
    this.#read = true;
  }

  /**
   * Make {@link state} current: read the durable meter unless this request reserved (its holding's
   * figure is then this process's latest) or already read it.
   */
  async ensureLoaded(): Promise<void> {
    if (this.#read) return;
    if (this.#reserved && this.#held.known) return;
    await this.load();
  }

  /**
   * Reserve up to `wanted` records; returns how many may be served (1..wanted), or 0 when `wanted` is
   * not positive. Reservations add up until {@link settle}. Served from this process's block when it
   * can (no I/O); see record-blocks.ts.
   * @throws ApiError 402 `record_quota_exhausted` when none remain.
   */
  async reserve(wanted: number): Promise<number> {
    if (!(wanted > 0)) return 0;
    const grant = await this.#held.reserve(Math.floor(wanted));
    this.#reserved = true;
    const granted = grant.block + grant.exact;
    if (granted === 0) {
      this.#exhausted = true;
      throw new ApiError(
        'record_quota_exhausted',
        `The monthly record allowance of this key (${this.#limit} records) is spent; it resets on ${this.#resetsOn} (UTC). /v1/me costs no records.`,
      );
    }
    this.#outstanding = { block: this.#outstanding.block + grant.block, exact: this.#outstanding.exact + grant.exact };
    return granted;
  }

  /**
   * `served` of the reserved records were served; the rest go back: records reserved exactly to the
   * durable meter first (other processes may grant them), the rest to this process's block.
   */
  async settle(served: number): Promise<void> {
    const { block, exact } = this.#outstanding;
    const total = block + exact;
    const spent = Math.max(0, Math.min(Math.floor(served), total));
    this.#outstanding = { block: 0, exact: 0 };
    const unused = total - spent;
    const unusedExact = Math.min(unused, exact);
    const unusedBlock = unused - unusedExact;
    this.#held.count(block - unusedBlock);
    if (unused > 0) await this.#held.giveBack({ block: unusedBlock, exact: unusedExact });
  }

  /** Give back every reservation not settled yet (the request failed or was cut off): it charges nothing. */
  async release(): Promise<void> {
    await this.settle(0);
  }

  /** True when a reservation of this request was refused for lack of records. */
  get exhausted(): boolean {
    return this.#exhausted;
  }

  /** True while reserved records are neither served nor given back. */
  get unsettled(): boolean {
    return this.#outstanding.block + this.#outstanding.exact > 0;
  }

  state(): RecordAllowanceState {
    const used = this.#held.used;
    return {
      limit: this.#limit,
      used,
      remaining: this.#limit === null ? null : Math.max(0, this.#limit - used),
    };
  }
}
