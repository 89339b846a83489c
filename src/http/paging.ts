/**
 * One page of a paged listing, the same way for all seven paged handlers (`/v1/jobs`, `/public/jobs`,
 * `/v1/jobs/closed`, `/v1/changes`, `/v1/jobs/expired`, `/v1/companies`, `/public/companies`):
 * decode the cursor the client sent (a bad one is a 422 the one way below), reserve records, read the
 * page with what was granted, settle with what was served, encode the next cursor.
 *
 * Two cursor formats exist: the opaque keyset cursor of the listings (`domain/cursor.ts`: HMAC-signed,
 * bound to the query by its fingerprint) and the feeds' clear `<timestamp>|<uuid>`
 * (`domain/feed-cursor.ts`, spec: Events item 2).
 */
import { CursorError, decodeCursor, encodeCursor, queryFingerprint, type CursorPosition } from '../domain/cursor.ts';
import { ApiError } from '../domain/errors.ts';
import { formatFeedCursor, parseSince, type FeedPosition } from '../domain/feed-cursor.ts';
import { quoteValue } from './query-values.ts';
import type { RecordMeter } from './record-meter.ts';

/** A cursor format bound to one query: how a page position travels to the client and back. */
export interface CursorCodec<P> {
  /**
   * The position a cursor as sent stands for; undefined: the first page.
   * @throws ApiError 422 `bad_cursor` (a feed also `bad_timestamp`) naming what is wrong.
   */
  decode(sent: string | undefined): P | undefined;
  encode(position: P): string;
}

/** How a listing's own position maps to the keyset cursor's `{key, id}` (default: it is one). */
export interface PositionCodec<P> {
  toCursor(position: P): CursorPosition;
  /** @throws CursorError when a correctly signed cursor does not hold this listing's position. */
  fromCursor(cursor: CursorPosition): P;
}

const IDENTITY: PositionCodec<CursorPosition> = { toCursor: (p) => p, fromCursor: (c) => c };

/**
 * The opaque keyset cursor of `endpoint` for one query: `query` is what the cursor is bound to (its
 * filters, scope...), hashed with the endpoint into the fingerprint, so a cursor from another query or
 * endpoint is refused (spec: Job page, "pass back verbatim").
 */
export function keysetCursor(secret: string, endpoint: string, query: Record<string, unknown>): CursorCodec<CursorPosition>;
export function keysetCursor<P>(secret: string, endpoint: string, query: Record<string, unknown>, position: PositionCodec<P>): CursorCodec<P>;
export function keysetCursor<P>(secret: string, endpoint: string, query: Record<string, unknown>, position?: PositionCodec<P>): CursorCodec<P> {
  const codec = position ?? (IDENTITY as unknown as PositionCodec<P>);
  const fingerprint = queryFingerprint({ endpoint, ...query });
  return {
    decode(sent) {
      if (sent === undefined) return undefined;
      try {
        return codec.fromCursor(decodeCursor(secret, fingerprint, sent));
      } catch (error) {
        if (error instanceof CursorError) {
          throw new ApiError(
            'bad_cursor',
            `The cursor ${quoteValue(sent)} is not valid here: ${error.message}. Pass back the next_cursor of the previous ${endpoint} page verbatim, with the same filters.`,
          );
        }
        throw error;
      }
    },
    encode: (p) => encodeCursor(secret, fingerprint, codec.toCursor(p)),
  };
}

/**
 * The cursor of a feed: `since` is required, a timestamp on the first call and `next_since` afterwards.
 * Its errors are the feed's own (`domain/feed-cursor.ts parseSince`): 422 `bad_timestamp` or `bad_cursor`.
 */
export function feedCursor(endpoint: string): CursorCodec<FeedPosition> {
  return {
    decode: (sent) => parseSince(sent, endpoint),
    encode: (p) => formatFeedCursor(p.at, p.id),
  };
}

/** What a page read returns: its rows, and the position of the next page when there is one. */
export interface PageRead<P, R> {
  rows: R[];
  next?: P;
}

/** A page served. */
export interface ServedPage<P, R> {
  rows: R[];
  /** Where this page started (the decoded cursor); undefined on a first page. */
  after: P | undefined;
  /** The next page's cursor, or null when there is none. */
  nextCursor: string | null;
}

/**
 * Serve one page: decode → reserve → read → settle → encode. A page is never served beyond the record
 * allowance: it is cut to what the meter grants, and the next cursor still points at the first row not
 * served (spec: Limits › Metering rules).
 * @param o.cursor the query's cursor format; absent on a surface that does not page (keyless).
 * @param o.sent the cursor as the client sent it.
 * @param o.limit rows asked for, after clamping.
 * @param o.read reads at most `granted` rows after `after`.
 * @param o.records records the rows cost (default one per row; spec: Metering rules).
 * @throws ApiError 422 from the cursor, 402 `record_quota_exhausted` from the meter, or what `read` throws.
 */
export async function servePage<P, R>(o: {
  meter: RecordMeter;
  cursor?: CursorCodec<P>;
  sent?: string;
  limit: number;
  read: (after: P | undefined, granted: number) => Promise<PageRead<P, R>>;
  records?: (rows: R[]) => number;
}): Promise<ServedPage<P, R>> {
  const after = o.cursor?.decode(o.sent);
  const granted = await o.meter.reserve(o.limit);
  const page = await o.read(after, granted);
  await o.meter.settle(o.records ? o.records(page.rows) : page.rows.length);
  return { rows: page.rows, after, nextCursor: page.next !== undefined && o.cursor ? o.cursor.encode(page.next) : null };
}
