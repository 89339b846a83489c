/**
 * The response enumerations of the OpenAPI document are open (spec: Versioning, "enumerations are not
 * closed": a new value is a compatible change, and clients must accept values they do not know;
 * issue 19). Every string `enum` of a response schema keeps its `enum`, so the document still lists
 * the values known today, and gains `x-extensible-enum` with the same values, Zalando's marker of an
 * open list (RESTful API guidelines, rule 112). @jobledger/sdk's generator turns a marked enum into
 * the known literals `| (string & {})` instead of a closed union (packages/sdk/scripts/openapi-document.ts).
 *
 * Request parameters are not touched: an unknown value there is refused (422), so those lists are closed.
 */

type Json = Record<string, unknown>;

/** The marker's keyword. */
export const OPEN_ENUM_KEYWORD = 'x-extensible-enum';

function markSchema(node: unknown, seen: Set<unknown>): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  if (Array.isArray(node)) {
    for (const item of node) markSchema(item, seen);
    return;
  }
  const schema = node as Json;
  if (Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === 'string')) schema[OPEN_ENUM_KEYWORD] = [...schema.enum];
  for (const [key, value] of Object.entries(schema)) {
    // Examples are values, not schemas: an `enum` key inside one is data.
    if (key === 'example' || key === 'examples' || key === 'enum' || key === OPEN_ENUM_KEYWORD) continue;
    markSchema(value, seen);
  }
}

/**
 * Mark every string enum of `components.schemas` and of the operations' response bodies open
 * (a `transformObject` step of @fastify/swagger). Returns the same document.
 */
export function documentOpenEnums<T>(document: T): T {
  const doc = document as Json;
  const seen = new Set<unknown>();
  markSchema((doc.components as Json | undefined)?.schemas, seen);
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      for (const response of Object.values((operation?.responses ?? {}) as Record<string, Json>)) {
        for (const media of Object.values((response.content ?? {}) as Record<string, Json>)) markSchema(media.schema, seen);
      }
    }
  }
  return document;
}
