/**
 * The generic value parsers of query parameters: text, comma lists, page sizes, booleans, decimal
 * numbers, instants and vocabulary lists. Each reads one value as sent (after the first-occurrence rule
 * of `query-string.ts`) and either returns it typed or throws the catalogue error the caller names.
 * The parameter tables (`src/http/schemas/`) build every parameter from these.
 *
 * Leniency (spec: Shared listing filters; Errors › Deliberate non-errors): values are case-insensitive
 * wherever a vocabulary is involved, surrounding blanks are dropped, an empty value counts as absent, a
 * long list is truncated rather than refused, and a non-numeric page size falls back to the default.
 */
import { ApiError, quoteValue, type ErrorCode } from '../domain/errors.ts';

export { quoteValue };

/**
 * A text value: trimmed, undefined when absent or empty.
 * @throws ApiError 400 `bad_request` when it contains a NUL character, which no text column can hold.
 */
export function text(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.includes('\u0000')) throw new ApiError('bad_request', `The value of ${name} contains a NUL character.`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Longest full-text query read, characters (issue 13, defect 5; a title or a phrase is far shorter). */
export const SEARCH_MAX_LENGTH = 500;
/** Most terms (words, quoted phrases, `or`) in one full-text query after normalising (issue 13, defect 5). */
export const SEARCH_MAX_TERMS = 32;

/**
 * A full-text query (web-search syntax: words, "quoted phrase", `or`, -word) normalised so that
 * PostgreSQL's `websearch_to_tsquery` can always plan it: a run of `-` becomes one, and a `-` that
 * negates nothing (not followed by a letter, digit or quote) is dropped, and so is a token of
 * separators only (`(`, `!`, `&`). Without this, 33 `-` in a
 * row, or `-(-(-(...`, nest NOT operators past the parser's stack ("tsquery stack too small", a 500).
 * Absent, empty or blank → undefined.
 * @throws ApiError 422 `bad_query` when the value is longer than {@link SEARCH_MAX_LENGTH} characters,
 *   holds more than {@link SEARCH_MAX_TERMS} terms, or has no letter or digit to search for.
 */
export function searchText(name: string, value: string | undefined): string | undefined {
  const raw = text(name, value);
  if (raw === undefined) return undefined;
  if (raw.length > SEARCH_MAX_LENGTH) {
    throw new ApiError('bad_query', `The value of ${name} is ${raw.length} characters long; a full-text query may have at most ${SEARCH_MAX_LENGTH}.`);
  }
  const normal = raw
    .replace(/-{2,}/g, '-')
    .replace(/-(?![\p{L}\p{N}"])/gu, ' ')
    .split(/\s+/)
    // A token without a letter, digit or quote is only separators to the parser: it searches nothing.
    .filter((token) => /[\p{L}\p{N}"]/u.test(token));
  if (normal.length > SEARCH_MAX_TERMS) {
    throw new ApiError('bad_query', `The value of ${name} has ${normal.length} terms; a full-text query may have at most ${SEARCH_MAX_TERMS}.`);
  }
  if (!/[\p{L}\p{N}]/u.test(raw)) {
    throw new ApiError('bad_query', `The value ${quoteValue(raw)} of ${name} has no letter or digit to search for.`);
  }
  return normal.join(' ');
}

/**
 * Split a comma list into trimmed, non-empty items; the first `max` items as sent are kept (the rest
 * is truncated, spec: Deliberate non-errors), then repeats are dropped. Undefined when none remain.
 */
export function commaList(value: string | undefined, max: number): string[] | undefined {
  if (value === undefined) return undefined;
  const items = [...new Set(value.split(',').map((s) => s.trim()).filter(Boolean).slice(0, max))];
  return items.length > 0 ? items : undefined;
}

/** The items with repeats dropped (first occurrence kept); undefined stays undefined. */
export function dedupe<T>(items: T[] | undefined): T[] | undefined {
  return items ? [...new Set(items)] : undefined;
}

/**
 * A page size: clamped to [1, max], fractions dropped; absent or non-numeric → `fallback` (itself at
 * most `max`) (spec: GET /v1/jobs `limit`, "A non-numeric value falls back to the default").
 */
export function parseLimit(value: string | undefined, max: number, fallback: number): number {
  const v = value?.trim();
  const n = v === undefined || v === '' ? Number.NaN : Number(v);
  if (!Number.isFinite(n)) return Math.min(fallback, max);
  return Math.max(1, Math.min(Math.floor(n), max));
}

/**
 * A boolean: true/false, 1/0, yes/no (any case). Absent or empty → `fallback`.
 * @throws ApiError 422 `bad_boolean`, naming the value and the parameter.
 */
export function parseBoolean(name: string, value: string | undefined, fallback: boolean): boolean {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ApiError('bad_boolean', `The value ${quoteValue(value!)} of ${name} is not a boolean; send true or false.`);
}

/** A boolean that stays undefined when absent or empty (a filter that is either on, off, or not asked). */
export function parseOptionalBoolean(name: string, value: string | undefined): boolean | undefined {
  return value === undefined || value.trim() === '' ? undefined : parseBoolean(name, value, false);
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A plain decimal number (`50000`, `52500.5`, `1e5`): no units, hex, `Infinity` or blanks. Undefined
 * when it is not one, or is out of the finite range; the caller names the error.
 */
export function parseDecimal(value: string): number | undefined {
  const n = DECIMAL.test(value) ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  return d.getUTCDate();
}

/** A UTC instant from its parts (unlike Date.UTC, years 1-99 stay years 1-99). */
function utcInstant(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, millis);
  return d;
}

/**
 * An instant: a date (`2026-11-01`, midnight UTC) or an RFC 3339 timestamp with an offset
 * (`2026-11-01T08:00:00Z`, `2026-11-01T09:00:00+01:00`; seconds and fractions optional). Every part
 * is range-checked, so `2026-02-30` is refused rather than rolled over into March. Absent or empty →
 * undefined.
 * @param formatsAt the document that describes the formats, named in the error (the caller's surface).
 * @throws ApiError 422 `bad_timestamp`, naming the value.
 */
export function parseInstant(name: string, value: string | undefined, formatsAt: string): Date | undefined {
  const v = value?.trim();
  if (v === undefined || v === '') return undefined;
  const fail = () =>
    new ApiError(
      'bad_timestamp',
      `The value ${quoteValue(v)} of ${name} is not a date (YYYY-MM-DD) or an RFC 3339 timestamp such as 2026-11-01T00:00:00Z; the formats are described at ${formatsAt}.`,
    );
  const date = DATE_ONLY.exec(v);
  const ts = date ? undefined : TIMESTAMP.exec(v);
  const parts = date ?? ts;
  if (!parts) throw fail();
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw fail();
  if (!ts) return utcInstant(year, month, day, 0, 0, 0, 0);
  const [hour, minute] = [Number(ts[4]), Number(ts[5])];
  // RFC 3339 allows a leap second (:60); it is read as the last millisecond of that minute.
  const second = ts[6] === undefined ? 0 : Number(ts[6]);
  const millis = ts[7] === undefined ? 0 : Math.floor(Number(`0${ts[7]}`) * 1000);
  if (hour > 23 || minute > 59 || second > 60) throw fail();
  let offsetMinutes = 0;
  if (!ts[8]) {
    const [oh, om] = [Number(ts[10]), Number(ts[11])];
    if (oh > 23 || om > 59) throw fail();
    offsetMinutes = (ts[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const local = utcInstant(year, month, day, hour, minute, Math.min(second, 59), second === 60 ? 999 : millis);
  return new Date(local.getTime() - offsetMinutes * 60_000);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a uuid in its canonical hyphenated form, any case. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The 422 of a vocabulary value: names the value and where the legal values are listed. */
export function vocabularyError(code: ErrorCode, name: string, value: string, where: string): ApiError {
  return new ApiError(code, `The value ${quoteValue(value)} is not a legal ${name}; the legal values are listed at ${where}.`);
}

/**
 * Map each item of a comma list through a case-insensitive lookup (keys in lower case), dropping
 * repeats of the canonical value.
 * @throws the error `onMiss` builds for the first item the lookup does not know.
 */
export function lookupList<T>(items: string[] | undefined, lookup: ReadonlyMap<string, T>, onMiss: (item: string) => ApiError): T[] | undefined {
  if (!items) return undefined;
  const out = items.map((item) => {
    const hit = lookup.get(item.toLowerCase());
    if (hit === undefined) throw onMiss(item);
    return hit;
  });
  return [...new Set(out)];
}
