/**
 * The calendar of metering (spec: Limits › Metering rules): the request allowance per day resets at
 * UTC midnight, the record allowance on the 1st of the month (UTC). Every meter reads time through a
 * {@link Clock}, so tests can stand at the edge of a day or a month instead of waiting for it.
 */

/** The current instant. Production uses {@link systemClock}; tests pass a controllable one. */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of the UTC day containing `at`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The next UTC midnight strictly after `at`. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS + DAY_MS);
}

/** `YYYY-MM-01` of the UTC month containing `at`: the record meter's period. */
export function utcMonthStart(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

/** 00:00 UTC on the 1st of the month after `at`: when the record allowance resets. */
export function nextUtcMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Whole seconds from `from` until `until`, rounded up, at least 1 (a Retry-After of 0 invites a hot loop). */
export function secondsUntil(until: Date, from: Date): number {
  return Math.max(1, Math.ceil((until.getTime() - from.getTime()) / 1000));
}
