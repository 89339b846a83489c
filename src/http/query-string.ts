/**
 * Query-string parsing per the spec, not the framework's default: the first occurrence of a repeated
 * parameter wins (spec: Shared listing filters), names stay case-sensitive, malformed percent-encoding
 * is kept literally instead of failing the request.
 */

/** Parse `a=1&a=2&B=3` into `{ a: '1', B: '3' }`. */
export function parseQueryString(raw: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(raw)) {
    if (!(name in out)) out[name] = value;
  }
  return out;
}
