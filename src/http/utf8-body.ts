/**
 * Response bodies written as UTF-8 bytes from pieces of JSON text (issue 22). A body the handler
 * returns as one string is scanned by Fastify for its length (`Content-Length`) and again by Node.js
 * to encode it, and a string joined from many rows' JSON is first flattened, a copy of every row. A
 * Buffer goes to the socket as it is, and its length is the header; here each piece is measured and
 * encoded as it is, so no piece (a row's JSON from PostgreSQL) is copied into a larger string.
 * Measured on the change feed's 5,000-item pages (bench/README.md, 2026-11-29).
 */

/** The concatenation of `pieces` as UTF-8 bytes, in one buffer of exactly their length. */
export function utf8Bytes(pieces: readonly string[]): Buffer {
  const sizes = pieces.map((piece) => Buffer.byteLength(piece));
  let size = 0;
  for (const n of sizes) size += n;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < pieces.length; i++) at += bytes.write(pieces[i]!, at, sizes[i]!);
  return bytes;
}

/**
 * The pieces of a JSON text `head` + the items joined by `,` + `tail`, each item given as its own
 * pieces (a row's JSON from PostgreSQL among them), for {@link utf8Bytes}.
 */
export function listPieces<T>(head: string, items: readonly T[], piecesOf: (item: T) => readonly string[], tail: string): string[] {
  const pieces = [head];
  for (let i = 0; i < items.length; i++) {
    if (i > 0) pieces.push(',');
    pieces.push(...piecesOf(items[i]!));
  }
  pieces.push(tail);
  return pieces;
}
