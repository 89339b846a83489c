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
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors.ts';
import { recordsUsed, releaseRecords, reserveRecords } from '../store/record-usage.ts';
import type { DB } from '../store/schema.ts';
import { nextUtcMonthStart, utcDay, utcMonthStart } from './periods.ts';

/** The allowance as the response headers report it. */
export interface RecordAllowanceState {
  /** Records per month; null = unlimited. */
  limit: number | null;
  used: number;
  /** null = unlimited. */
  remaining: number | null;
}

export class RecordAllowance {
  readonly #db: Kysely<DB>;
  readonly #keyId: string;
  readonly #limit: number | null;
  readonly #period: string;
  readonly #resetsOn: string;
  #used = 0;
  #outstanding = 0;
  #exhausted = false;
  /** Whether #used holds the meter's value as of this request (read, reserved or settled). */
  #known = false;

  /**
   * @param limit records per month, or null for an unmetered (country-locked) key
   * @param now the request's start: it fixes the month charged
   */
  constructor(db: Kysely<DB>, keyId: string, limit: number | null, now: Date) {
    this.#db = db;
    this.#keyId = keyId;
    this.#limit = limit;
    this.#period = utcMonthStart(now);
    this.#resetsOn = utcDay(nextUtcMonthStart(now));
  }

  /** Read the month's usage so far (for the headers of requests that reserve nothing). */
  async load(): Promise<void> {
    this.#used = await recordsUsed(this.#db, this.#keyId, this.#period);
    this.#known = true;
  }

  /**
   * Make {@link state} current: read the usage unless a reservation or settlement of this request
   * already returned it (a listing page then costs no separate read of the meter).
   */
  async ensureLoaded(): Promise<void> {
    if (!this.#known) await this.load();
  }

  /**
   * Reserve up to `wanted` records; returns how many may be served (1..wanted), or 0 when `wanted` is
   * not positive. Reservations add up until {@link settle}.
   * @throws ApiError 402 `record_quota_exhausted` when none remain.
   */
  async reserve(wanted: number): Promise<number> {
    if (!(wanted > 0)) return 0;
    const { granted, used } = await reserveRecords(this.#db, this.#keyId, this.#period, Math.floor(wanted), this.#limit);
    this.#used = used;
    this.#known = true;
    if (granted === 0) {
      this.#exhausted = true;
      throw new ApiError(
        'record_quota_exhausted',
        `The monthly record allowance of this key (${this.#limit} records) is spent; it resets on ${this.#resetsOn} (UTC). /v1/me costs no records.`,
      );
    }
    this.#outstanding += granted;
    return granted;
  }

  /** `served` of the reserved records were served; the rest go back to the allowance. */
  async settle(served: number): Promise<void> {
    const unused = this.#outstanding - Math.max(0, Math.min(Math.floor(served), this.#outstanding));
    this.#outstanding = 0;
    if (unused > 0) {
      this.#used = await releaseRecords(this.#db, this.#keyId, this.#period, unused);
      this.#known = true;
    }
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
    return this.#outstanding > 0;
  }

  state(): RecordAllowanceState {
    return {
      limit: this.#limit,
      used: this.#used,
      remaining: this.#limit === null ? null : Math.max(0, this.#limit - this.#used),
    };
  }
}
