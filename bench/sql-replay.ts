/**
 * Replaying the service's own SQL outside the service: a captured statement (text with $n
 * placeholders and the values node-postgres sent) becomes one self-contained statement with the
 * values inlined as literals, for `pgbench -M prepared`, `EXPLAIN (ANALYZE, BUFFERS)` and `COPY`.
 *
 * Inlining rather than pgbench variables: the service sends unnamed statements, which PostgreSQL plans
 * with the actual values every time; a prepared statement with the values inlined gets that same plan
 * once, so the floor measures execution without planning (a strict floor), never a generic plan the
 * service would not get.
 */

/** A PostgreSQL literal for a value node-postgres would have sent as parameter text. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return quote(value.toISOString());
  if (Array.isArray(value)) return quote(arrayLiteral(value));
  if (typeof value === 'object') return quote(JSON.stringify(value));
  return quote(String(value));
}

function quote(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** node-postgres's array text form: {"a","b"} with backslash escapes, NULL for null. */
function arrayLiteral(values: unknown[]): string {
  return `{${values
    .map((v) => {
      if (v === null || v === undefined) return 'NULL';
      if (Array.isArray(v)) return arrayLiteral(v);
      const text = v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
      return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    })
    .join(',')}}`;
}

/** `text` with each `$n` replaced by the literal of `values[n - 1]` (Kysely never writes `$` otherwise). */
export function inlineParameters(text: string, values: unknown[]): string {
  return text.replace(/\$(\d+)\b/g, (_m, n: string) => sqlLiteral(values[Number(n) - 1]));
}
