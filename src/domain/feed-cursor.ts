/**
 * The cursors of the sync feeds (spec: Events item 2; GET /v1/changes, GET /v1/jobs/expired): `since`
 * is an RFC 3339 timestamp on a first call and a returned `next_since` afterwards, which has the form
 * `<timestamp>|<uuid>`. The cursor is in the clear, as the spec writes it: the timestamp is the feed
 * stamp of the last item delivered (whole milliseconds, UTC) and the uuid its job id, so a client may
 * also build one from an item's `changed_at`/`closed_at` and `id`. Items strictly after the position
 * are served; a bare timestamp T means "everything stamped at T or later".
 */
import { ApiError, quoteValue } from './errors.ts';

/** A position in a feed: items after (`at`, `id`) in (stamp, job id) order. */
export interface FeedPosition {
  /** RFC 3339 UTC instant, as PostgreSQL should read it (`2026-11-22T10:00:00.123Z`). */
  at: string;
  /** Lower-case job uuid; the nil uuid for a bare timestamp (sorts before every real id). */
  id: string;
}

/** The nil uuid: the position "before every job at this instant". */
export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
// RFC 3339 date-time; a space is accepted for the `T` and, where an unencoded `+` of the offset was
// read as a space by the query string, for the `+` too.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+ -]\d{2}:\d{2})$/;

/**
 * Parse an RFC 3339 instant (or a bare `YYYY-MM-DD`, read as midnight UTC) into a canonical RFC 3339
 * string with its offset (fraction kept to microseconds), or undefined when it is not one. Calendar
 * and clock fields are checked (no 2026-02-30, no 24:00).
 */
export function parseFeedInstant(value: string): string | undefined {
  const text = value.trim();
  const date = DATE_ONLY.exec(text);
  if (date) return validCalendar(+date[1]!, +date[2]!, +date[3]!) ? `${date[1]}-${date[2]}-${date[3]}T00:00:00Z` : undefined;
  const m = DATE_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = m;
  if (!validCalendar(+y!, +mo!, +d!) || +h! > 23 || +mi! > 59 || +s! > 59) return undefined;
  const offset = zone!.toUpperCase() === 'Z' ? 'Z' : `${zone!.startsWith('-') ? '-' : '+'}${zone!.slice(1)}`;
  if (offset !== 'Z') {
    const [oh, om] = offset.slice(1).split(':').map(Number);
    if (oh! > 23 || om! > 59) return undefined;
  }
  // PostgreSQL keeps microseconds; finer digits are cut (never rounded up, which could skip an item).
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${fraction ? fraction.slice(0, 7) : ''}${offset}`;
}

function validCalendar(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

/**
 * Parse a feed's `since` parameter.
 * @throws ApiError 422 `bad_timestamp` when it is missing or not a timestamp; 422 `bad_cursor` when it
 *   has the cursor form (`<timestamp>|<uuid>`) but either part is malformed or it was truncated.
 */
export function parseSince(value: string | undefined, endpoint: string): FeedPosition {
  const text = value?.trim() ?? '';
  if (text === '') {
    throw new ApiError('bad_timestamp', `${endpoint} needs since: an RFC 3339 timestamp such as 2026-11-01T00:00:00Z on the first call, then the next_since of the previous page.`);
  }
  if (text.includes('|')) {
    const [at, id, ...rest] = text.split('|');
    const instant = at === undefined ? undefined : parseFeedInstant(at);
    if (rest.length > 0 || instant === undefined || id === undefined || !UUID.test(id.trim())) {
      throw new ApiError('bad_cursor', `The since value ${quoteValue(value ?? '')} is not a cursor of this feed: pass back next_since verbatim (form <timestamp>|<uuid>).`);
    }
    return { at: instant, id: id.trim().toLowerCase() };
  }
  const instant = parseFeedInstant(text);
  if (instant === undefined) {
    throw new ApiError('bad_timestamp', `The since value ${quoteValue(value ?? '')} is not an RFC 3339 timestamp such as 2026-11-01T00:00:00Z, nor a next_since cursor.`);
  }
  return { at: instant, id: NIL_UUID };
}

/** Format a position as `next_since`: `<timestamp>|<uuid>`. */
export function formatFeedCursor(at: string, id: string): string {
  return `${at}|${id}`;
}
