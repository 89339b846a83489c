import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { formatFeedCursor, NIL_UUID, parseFeedInstant, parseSince } from './feed-cursor.ts';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ApiError ? error.code : 'other';
  }
  return undefined;
}

describe('feed cursors (spec: Events, next_since <timestamp>|<uuid>)', () => {
  it('reads RFC 3339 instants with any offset and fraction, and bare dates as midnight UTC', () => {
    expect(parseFeedInstant('2026-11-22T10:00:00Z')).toBe('2026-11-22T10:00:00Z');
    expect(parseFeedInstant('2026-11-22t10:00:00.123z')).toBe('2026-11-22T10:00:00.123Z');
    expect(parseFeedInstant('2026-11-22T10:00:00.123456789+02:00')).toBe('2026-11-22T10:00:00.123456+02:00');
    expect(parseFeedInstant('2026-11-22T10:00:00 02:00')).toBe('2026-11-22T10:00:00+02:00');
    expect(parseFeedInstant('2026-11-22T10:00:00-05:30')).toBe('2026-11-22T10:00:00-05:30');
    expect(parseFeedInstant('2026-11-22')).toBe('2026-11-22T00:00:00Z');
  });

  it('refuses what is not a real instant', () => {
    for (const bad of ['2026-02-29', '2026-11-31T00:00:00Z', '2026-11-22T24:00:00Z', '2026-11-22T10:60:00Z', '2026-11-22T10:00:00', '2026-11-22T10:00Z', 'now', '1700000000', '2026-11-22T10:00:00+25:00']) {
      expect(parseFeedInstant(bad), bad).toBeUndefined();
    }
    expect(parseFeedInstant('2028-02-29')).toBe('2028-02-29T00:00:00Z');
  });

  it('parses a bare timestamp as "at or after" it and a cursor as "after" it', () => {
    expect(parseSince('2026-11-22T10:00:00Z', '/v1/changes')).toEqual({ at: '2026-11-22T10:00:00Z', id: NIL_UUID });
    const id = '0F8FAD5B-D9CB-469F-A165-70867728950E';
    expect(parseSince(`2026-11-22T10:00:00.123Z|${id}`, '/v1/changes')).toEqual({ at: '2026-11-22T10:00:00.123Z', id: id.toLowerCase() });
    expect(formatFeedCursor('2026-11-22T10:00:00.123Z', id.toLowerCase())).toBe(`2026-11-22T10:00:00.123Z|${id.toLowerCase()}`);
  });

  it('answers bad_timestamp for a missing or unparseable since, bad_cursor for a broken cursor', () => {
    expect(code(() => parseSince(undefined, '/v1/changes'))).toBe('bad_timestamp');
    expect(code(() => parseSince('  ', '/v1/changes'))).toBe('bad_timestamp');
    expect(code(() => parseSince('last tuesday', '/v1/changes'))).toBe('bad_timestamp');
    expect(code(() => parseSince('2026-11-22T10:00:00Z|', '/v1/changes'))).toBe('bad_cursor');
    expect(code(() => parseSince('2026-11-22T10:00:00Z|0f8fad5b-d9cb-469f-a165', '/v1/changes'))).toBe('bad_cursor');
    expect(code(() => parseSince('|0f8fad5b-d9cb-469f-a165-70867728950e', '/v1/changes'))).toBe('bad_cursor');
    expect(code(() => parseSince('2026-11-22T10:00:00Z|0f8fad5b-d9cb-469f-a165-70867728950e|x', '/v1/changes'))).toBe('bad_cursor');
  });
});
