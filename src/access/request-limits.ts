/**
 * The request allowance of a key (spec: Limits › Plan matrix and Metering rules): requests per minute
 * and per day, counted per key (not per account), both checked and charged together.
 *
 * - The minute window starts at the key's first request and lasts 60 seconds.
 * - The day is the UTC calendar day: its counter is keyed by the date, so it resets at UTC midnight.
 * - Both windows are counted, and taken back on a refusal, by one atomic operation: one Redis round
 *   trip per request (`limitedHits`, issue 22).
 * - A request refused by either limit charges neither (its hits are taken back), so 400 concurrent
 *   requests against a limit of 100 let exactly 100 through. A request refused later by another budget
 *   (402 for records) is refunded through {@link RequestLimiter.refund}.
 * - 429 `Retry-After`: seconds until the minute window resets, or on a daily breach the seconds until
 *   UTC midnight (spec: Metering rules item 3).
 */
import { nextUtcMidnight, secondsUntil, utcDay, type Clock } from './periods.ts';
import { limitedHits, windowCounter, type CounterStore, type LimitedHits, type WindowCount, type WindowCounter } from './counters.ts';

/** The limits of a plan that this module enforces (columns of `plans`). */
export interface RequestAllowance {
  requests_per_minute: number;
  requests_per_day: number;
}

/** One window of the allowance as the response headers report it. */
export interface WindowState {
  limit: number;
  /** Requests counted in the window, refused ones excluded. */
  used: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** What charging a request found. */
export interface RequestCharge {
  allowed: boolean;
  minute: WindowState;
  day: WindowState;
  /** Seconds to wait when refused (the later reset of the breached windows). */
  retryAfterSeconds?: number;
  /** Counter keys, to refund this request. */
  readonly keys: { minute: string; day: string; daySeconds: number };
}

/** A minute, in seconds: the short window (spec: "requests per minute"). */
const MINUTE_SECONDS = 60;
/**
 * Day counters live an hour past midnight: they are keyed by date, so a late expiry never merges two
 * days, and the margin keeps a counter alive while a request straddles midnight.
 */
const DAY_COUNTER_GRACE_SECONDS = 3600;

function windowState(limit: number, used: number, resetSeconds: number): WindowState {
  return { limit, used, remaining: Math.max(0, limit - used), resetSeconds };
}

export class RequestLimiter {
  readonly #minute: WindowCounter;
  readonly #day: WindowCounter;
  readonly #both: LimitedHits;
  readonly #clock: Clock;

  constructor(store: CounterStore, clock: Clock) {
    this.#minute = windowCounter(store, 'req-min', MINUTE_SECONDS);
    this.#day = windowCounter(store, 'req-day', 86_400);
    this.#both = limitedHits(store);
    this.#clock = clock;
  }

  /**
   * Count one request of key `keyId` against both windows. Refused requests are taken back from both
   * counters before this returns.
   */
  async charge(keyId: string, allowance: RequestAllowance): Promise<RequestCharge> {
    const now = this.#clock();
    const midnight = nextUtcMidnight(now);
    const toMidnight = secondsUntil(midnight, now);
    const keys = { minute: keyId, day: `${keyId}:${utcDay(now)}`, daySeconds: toMidnight + DAY_COUNTER_GRACE_SECONDS };
    const { allowed, windows } = await this.#both.hit([
      { counter: this.#minute, key: keys.minute, limit: allowance.requests_per_minute },
      { counter: this.#day, key: keys.day, windowSeconds: keys.daySeconds, limit: allowance.requests_per_day },
    ]);
    const [minute, day] = windows as [WindowCount, WindowCount];
    const minuteSeconds = Math.max(1, Math.ceil(minute.msBeforeReset / 1000));
    if (allowed) {
      return {
        allowed: true,
        minute: windowState(allowance.requests_per_minute, minute.count, minuteSeconds),
        day: windowState(allowance.requests_per_day, day.count, toMidnight),
        keys,
      };
    }
    // Refused: both hits were already taken back; the counts seen included this request.
    const minuteOver = minute.count > allowance.requests_per_minute;
    const dayOver = day.count > allowance.requests_per_day;
    return {
      allowed: false,
      minute: windowState(allowance.requests_per_minute, Math.max(0, minute.count - 1), minuteSeconds),
      day: windowState(allowance.requests_per_day, Math.max(0, day.count - 1), toMidnight),
      retryAfterSeconds: Math.max(minuteOver ? minuteSeconds : 0, dayOver ? toMidnight : 0),
      keys,
    };
  }

  /** Give an allowed request back (it was refused by the record budget, which charges nothing). */
  async refund(charge: RequestCharge): Promise<RequestCharge> {
    if (!charge.allowed) return charge;
    await this.#undo(charge.keys);
    const less = (w: WindowState) => windowState(w.limit, Math.max(0, w.used - 1), w.resetSeconds);
    return { ...charge, minute: less(charge.minute), day: less(charge.day) };
  }

  /** Requests key `keyId` made today (UTC), refused ones excluded. */
  async usedToday(keyId: string): Promise<number> {
    return (await this.#day.peek(`${keyId}:${utcDay(this.#clock())}`)).count;
  }

  async #undo(keys: RequestCharge['keys']): Promise<void> {
    await Promise.all([this.#minute.undo(keys.minute), this.#day.undo(keys.day, keys.daySeconds)]);
  }
}
