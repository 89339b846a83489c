/**
 * Opaque keyset cursors for listing endpoints (spec: Job page `next_cursor`, "pass back verbatim").
 *
 * A cursor carries the last row's sort key and id plus a fingerprint of the query it belongs to, and
 * an HMAC-SHA256 tag (truncated to 128 bits) under the service's persistent secret, so a tampered
 * cursor, a truncated one, or one from another query is a 422 `bad_cursor` — never a 500 — and a
 * cursor stays valid across restarts and API processes (the secret lives in the database).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** Position after which the next page starts. `key` is the sort key as PostgreSQL text. */
export interface CursorPosition {
  key: string;
  id: string;
}

const VERSION = 1;

/** Fingerprint of a query: any change to its filters makes earlier cursors invalid for it. */
export function queryFingerprint(query: unknown): string {
  return createHash('sha256').update(JSON.stringify(query)).digest('base64url').slice(0, 12);
}

function tag(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest().subarray(0, 16);
}

/** Encode `position` for the query with fingerprint `fingerprint`. */
export function encodeCursor(secret: string, fingerprint: string, position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, f: fingerprint, k: position.key, i: position.id })).toString('base64url');
  return `${payload}.${tag(secret, payload).toString('base64url')}`;
}

/** Why a cursor was refused (the message names it, the code is always `bad_cursor`). */
export class CursorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CursorError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Decode and verify a cursor for the query with fingerprint `fingerprint`.
 * @throws CursorError when it is malformed, truncated, tampered with or from another query.
 */
export function decodeCursor(secret: string, fingerprint: string, cursor: string): CursorPosition {
  const [payload, signature, ...rest] = cursor.split('.');
  if (!payload || !signature || rest.length > 0) throw new CursorError('the cursor is malformed or truncated');
  const expected = tag(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new CursorError('the cursor is malformed, truncated or was altered');
  }
  let parsed: { v?: unknown; f?: unknown; k?: unknown; i?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw new CursorError('the cursor is malformed');
  }
  if (parsed.v !== VERSION || typeof parsed.k !== 'string' || typeof parsed.i !== 'string' || !UUID.test(parsed.i)) {
    throw new CursorError('the cursor is malformed');
  }
  if (parsed.f !== fingerprint) throw new CursorError('the cursor belongs to a different query; pass it back with the same filters');
  return { key: parsed.k, id: parsed.i };
}
