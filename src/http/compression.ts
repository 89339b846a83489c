/**
 * Response compression (issue 20, "HTTP"): br, gzip or deflate as the request's `Accept-Encoding`
 * prefers (RFC 9110 §12.5.3; on a tie, in that order), by `@fastify/compress`.
 *
 * - Buffered bodies of at least {@link COMPRESSION_THRESHOLD_BYTES} and at most
 *   {@link SYNC_COMPRESSION_MAX_BYTES} are compressed in one go and keep an exact `Content-Length`
 *   (so keyless-front-cache.ts can store the coded bytes); larger ones are piped through a compressor
 *   on libuv's threads, so one big body does not hold the event loop; smaller ones, and every body of
 *   a request without `Accept-Encoding`, go out as they are (identity).
 * - A stream (the NDJSON of `/v1/export`) is piped through a compressor that flushes every
 *   {@link STREAM_FLUSH_BYTES} of input, so the body still streams: without it brotli (quality 4) gave
 *   out nothing of a 1.1 MB NDJSON stream before its end (measured here), and gzip waits for its
 *   blocks to fill. Backpressure reaches the ledger reads as before.
 * - The `ETag` names the content, not its coding: it is computed from the uncompressed bytes
 *   (conditional.ts runs before the compressor), so one tag revalidates every coding of a resource
 *   and a 304 is the same whatever the client accepts. Every response that could be coded says
 *   `Vary: Accept-Encoding`, the identity ones and the 304s too, so a shared cache keeps codings apart.
 * - Request bodies are never decompressed: forms, webhooks (whose signatures cover the bytes sent)
 *   and MCP calls are read as sent.
 */
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Transform, type TransformCallback } from 'node:stream';
import zlib, { constants } from 'node:zlib';

/** Smallest body compressed, bytes: below about a kilobyte the coding's overhead outweighs the gain. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Largest buffered body compressed in one call on the event loop, bytes (`syncThreshold` of
 * @fastify/compress, whose default on 2 cores is 8 KiB): a default `/public/jobs` or `/v1/jobs` page is
 * 20-40 KB, which gzip codes in well under a millisecond; 64 KiB is the plugin's own ceiling.
 */
export const SYNC_COMPRESSION_MAX_BYTES = 64 * 1024;

/** The codings offered, in the server's order of preference on a tie of the client's weights. */
export const CONTENT_CODINGS = ['br', 'gzip', 'deflate'] as const;

/**
 * Input a streamed body's compressor takes before it hands on what it has, bytes. A flush costs a few
 * bytes and some ratio (brotli keeps its dictionary across it); 64 KiB is some 30 to 60 export lines.
 */
export const STREAM_FLUSH_BYTES = 64 * 1024;

/**
 * Media types worth compressing: text, JSON (NDJSON, problem+json), YAML (the OpenAPI document),
 * XML and JavaScript; never `text/event-stream`, whose events must not wait in a compressor.
 */
const COMPRESSIBLE = /^text\/(?!event-stream)|[+/](?:x-nd)?json(?:;|$)|[+/](?:yaml|xml|javascript)(?:;|$)/u;

/** A zlib or brotli compressor with its flush (zlib.Gzip, zlib.Deflate, zlib.BrotliCompress). */
type Compressor = Transform & { flush(kind: number, callback?: () => void): void };

/**
 * A compressor that flushes after every {@link STREAM_FLUSH_BYTES} of input (a sync flush: the
 * stream goes on with its dictionary). Output is pushed before a write is acknowledged, so the
 * socket's backpressure holds the writer back as with the bare compressor.
 */
class FlushingCompressor extends Transform {
  readonly #inner: Compressor;
  readonly #flushKind: number;
  #unflushed = 0;

  constructor(inner: Compressor, flushKind: number) {
    super();
    this.#inner = inner;
    this.#flushKind = flushKind;
    inner.on('data', (chunk: Buffer) => this.push(chunk));
    inner.on('error', (error) => this.destroy(error));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#unflushed += chunk.length;
    if (this.#unflushed < STREAM_FLUSH_BYTES) {
      // The write's callback comes once the chunk is compressed (and its output pushed).
      this.#inner.write(chunk, () => callback());
      return;
    }
    this.#unflushed = 0;
    this.#inner.write(chunk);
    this.#inner.flush(this.#flushKind, () => callback());
  }

  override _flush(callback: TransformCallback): void {
    this.#inner.once('end', () => callback());
    this.#inner.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#inner.destroy();
    callback(error);
  }
}

/**
 * The zlib functions @fastify/compress calls: streams flush as {@link FlushingCompressor} does; one-go
 * compression of buffered bodies is zlib's own.
 */
const flushingZlib = {
  createGzip: (options?: zlib.ZlibOptions) => new FlushingCompressor(zlib.createGzip(options) as Compressor, constants.Z_SYNC_FLUSH),
  createDeflate: (options?: zlib.ZlibOptions) => new FlushingCompressor(zlib.createDeflate(options) as Compressor, constants.Z_SYNC_FLUSH),
  createBrotliCompress: (options?: zlib.BrotliOptions) => new FlushingCompressor(zlib.createBrotliCompress(options) as Compressor, constants.BROTLI_OPERATION_FLUSH),
  gzipSync: zlib.gzipSync,
  deflateSync: zlib.deflateSync,
  brotliCompressSync: zlib.brotliCompressSync,
};

/** Whether @fastify/compress would code this reply's type (it reads a missing type as JSON). */
function compressible(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type') ?? 'application/json';
  return typeof type === 'string' && COMPRESSIBLE.test(type);
}

/** Add `accept-encoding` to the reply's Vary, once (lower case: the plugin looks for it so). */
function varyOnAcceptEncoding(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  const fields = (Array.isArray(current) ? current.join(',') : String(current ?? '')).split(',').map((f) => f.trim()).filter(Boolean);
  if (fields.some((f) => f === '*' || f.toLowerCase() === 'accept-encoding')) return;
  reply.header('vary', [...fields, 'accept-encoding'].join(', '));
}

/**
 * Register response compression on `app`. Call before any route is registered (the plugin hooks
 * each route as it is added) and after `installConditionalRequests`, whose hook must see the bytes
 * before they are coded.
 */
export async function installCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    encodings: [...CONTENT_CODINGS],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    syncThreshold: SYNC_COMPRESSION_MAX_BYTES,
    customTypes: COMPRESSIBLE,
    zlib: flushingZlib,
    // Quality 4 of 11: @fastify/compress's default, near gzip's speed at a better ratio.
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  });
  // The compressor adds Vary only to what it codes; a cache must also know that an identity body or
  // a 304 was chosen by Accept-Encoding.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode === 304 || compressible(reply)) varyOnAcceptEncoding(reply);
    return payload;
  });
}
