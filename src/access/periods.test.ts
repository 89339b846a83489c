import { describe, expect, it } from 'vitest';
import { nextUtcMidnight, nextUtcMonthStart, secondsUntil, utcDay, utcMonthStart } from './periods.ts';

describe('metering periods (UTC)', () => {
  it('ends the day at UTC midnight whatever the local zone', () => {
    const lateEvening = new Date('2026-03-31T23:59:58.400Z');
    expect(utcDay(lateEvening)).toBe('2026-03-31');
    expect(nextUtcMidnight(lateEvening).toISOString()).toBe('2026-04-01T00:00:00.000Z');
    expect(secondsUntil(nextUtcMidnight(lateEvening), lateEvening)).toBe(2);
    expect(nextUtcMidnight(new Date('2026-04-01T00:00:00.000Z')).toISOString()).toBe('2026-04-02T00:00:00.000Z');
  });

  it('starts the record month on the 1st, across year ends and leap days', () => {
    expect(utcMonthStart(new Date('2026-03-31T23:59:59.999Z'))).toBe('2026-03-01');
    expect(utcMonthStart(new Date('2026-04-01T00:00:00.000Z'))).toBe('2026-04-01');
    expect(nextUtcMonthStart(new Date('2026-12-31T12:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcMonthStart(new Date('2028-02-29T23:00:00Z')).toISOString()).toBe('2028-03-01T00:00:00.000Z');
  });

  it('never asks a client to retry after 0 seconds', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    expect(secondsUntil(at, at)).toBe(1);
    expect(secondsUntil(new Date(at.getTime() + 1500), at)).toBe(2);
  });
});
