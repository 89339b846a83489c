/**
 * A signed token (a cursor, an e-mailed link's token) with one character changed, for tests that
 * expect it refused. The changed character is a middle one: the last character of base64url text may
 * carry only padding bits, so changing it can decode to the same bytes and the token stays valid
 * (tests that changed the end failed now and then).
 */
export function tampered(token: string): string {
  const mid = token.length >> 1;
  return `${token.slice(0, mid)}${token[mid] === 'A' ? 'B' : 'A'}${token.slice(mid + 1)}`;
}
