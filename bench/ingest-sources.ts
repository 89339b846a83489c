/**
 * The upstream of the ingest benchmark (bench/ingest.ts): a loopback HTTP server answering on Ashby's
 * posting-API path, `GET /posting-api/job-board/<board>~<copy>`, with boards built from the recorded
 * real payloads. A measurement tool, never a test and never `npm start`.
 *
 * The recordings: every board of /work/shared/data/ashby/boards.tar.gz (extracted by the harness into
 * BENCH_INGEST_BOARDS_DIR as `<board>.json`) and the demo's fixtures/ashby boards that the archive does
 * not hold; boards without a listed posting are left out. They are read once and never written.
 *
 * Copies: board `<board>~<k>` is the recording of `<board>` with every posting id rewritten, so copies
 * are distinct vacancies to the ledger (its key is provider + posting id): the first 8 hex digits of
 * each posting's UUID become `k` in hex, wherever the id occurs in the payload (its `id`, and its
 * `jobUrl`/`applyUrl`); and the board named in those `jobs.ashbyhq.com/<board>/...` URLs becomes
 * `<board>~<k>`, the copy's own board (the quality gate withholds a posting whose page is on another
 * board). Everything else is served byte for byte as recorded.
 *
 * Generations (POST /__bench/generation?n=1&share=0.02): in generation 1 a deterministic `share` of the
 * postings of every copy (by a hash of copy and id) is changed at serve time: its `descriptionHtml`
 * and `descriptionPlain` get one more sentence, as an employer editing a posting would. A board with a
 * changed posting is served as `JSON.stringify` of the parsed, edited recording (same content, the
 * serializer's spelling); the recordings on disk stay untouched.
 *
 * Validators: a strong `ETag` per board, copy and the generation of its last change, so a board that
 * did not change answers `If-None-Match` with 304 as a conditional-request-aware API does. Bodies are
 * sent uncompressed (`Content-Type: application/json`).
 *
 * Politeness is the crawler's (the worker's per-host slots); this server counts the requests in flight
 * per `Host` and serves the peak at GET /__bench/stats, so the harness can show the bound held.
 *
 * Environment: PORT; BENCH_INGEST_BOARDS_DIR; BENCH_INGEST_FIXTURES_DIR (default fixtures/ashby).
 * Prints `listening <port>` once ready. GET /__bench/boards lists `{board, postings}` per recording.
 */
import crypto from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';

interface Recording {
  board: string;
  /** The payload as recorded. */
  raw: string;
  /** `raw` cut at each slot: segments[0] slots[0] segments[1] slots[1] ... */
  segments: string[];
  /** What a copy rewrites: a posting id, or the board's own name in a jobs.ashbyhq.com URL. */
  slots: Array<{ id: string } | { boardUrl: string }>;
  /** Listed postings' ids. */
  postingIds: string[];
}

/**
 * A UUID (a posting id when the board lists it) or the board segment of an Ashby posting page URL,
 * `jobs.ashbyhq.com/<board>` (the quality gate checks that it names the crawled board).
 */
const SLOT = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})|(jobs\.ashbyhq\.com\/)([^/"?#\\]+)/gi;

function segmentOf(encoded: string): string {
  try {
    return decodeURIComponent(encoded).toLowerCase();
  } catch {
    return encoded.toLowerCase();
  }
}

/** Cut `text` at its slots for `board` with the posting ids `known`. */
function cut(text: string, board: string, known: Set<string>): { segments: string[]; slots: Recording['slots'] } {
  const segments: string[] = [];
  const slots: Recording['slots'] = [];
  let last = 0;
  for (const match of text.matchAll(SLOT)) {
    let slot: Recording['slots'][number] | undefined;
    if (match[1] !== undefined && known.has(match[1])) slot = { id: match[1] };
    else if (match[3] !== undefined && segmentOf(match[3]) === board.toLowerCase()) slot = { boardUrl: match[0] };
    if (!slot) continue;
    segments.push(text.slice(last, match.index));
    slots.push(slot);
    last = match.index + match[0].length;
  }
  segments.push(text.slice(last));
  return { segments, slots };
}

function load(board: string, raw: string): Recording | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return null;
  }
  const jobs = (parsed as { jobs?: Array<Record<string, unknown>> }).jobs;
  if (!Array.isArray(jobs)) return null;
  const postingIds = jobs.filter((j) => j['isListed'] !== false && typeof j['id'] === 'string' && typeof j['title'] === 'string').map((j) => j['id'] as string);
  if (postingIds.length === 0) return null;
  const known = new Set(jobs.map((j) => j['id']).filter((id): id is string => typeof id === 'string'));
  return { board, raw, postingIds, ...cut(raw, board, known) };
}

function readRecordings(): Recording[] {
  const dir = process.env.BENCH_INGEST_BOARDS_DIR ?? '';
  const fixtures = process.env.BENCH_INGEST_FIXTURES_DIR ?? path.resolve(import.meta.dirname, '../fixtures/ashby');
  const byBoard = new Map<string, Recording>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    // The archive names a board's file by its URL-encoded token (`Forward%20Financing.json`).
    const recording = load(decodeURIComponent(file.slice(0, -'.json'.length)), readFileSync(path.join(dir, file), 'utf8'));
    if (recording) byBoard.set(recording.board, recording);
  }
  for (const file of readdirSync(fixtures).filter((f) => f.endsWith('.json.gz')).sort()) {
    const board = file.slice(0, -'.json.gz'.length);
    if (byBoard.has(board)) continue;
    const recording = load(board, zlib.gunzipSync(readFileSync(path.join(fixtures, file))).toString('utf8'));
    if (recording) byBoard.set(board, recording);
  }
  return [...byBoard.values()].sort((a, b) => (a.board < b.board ? -1 : a.board > b.board ? 1 : 0));
}

const recordings = readRecordings();
const byBoard = new Map(recordings.map((r) => [r.board, r]));

/** Copy k's id for a recorded posting id. */
function copyId(id: string, copy: number): string {
  return copy.toString(16).padStart(8, '0') + id.slice(8);
}

/** A number in [0, 1) from copy and id: which postings a generation changes. */
function unit(copy: number, id: string, generation: number): number {
  return crypto.createHash('sha1').update(`${generation}:${copy}:${id}`).digest().readUInt32BE(0) / 2 ** 32;
}

let generation = 0;
let share = 0;

/** The ids (recorded) of the postings of `recording` that generation `generation` changed in copy k. */
function changedIds(recording: Recording, copy: number): Set<string> {
  if (generation === 0 || share <= 0) return new Set();
  return new Set(recording.postingIds.filter((id) => unit(copy, id, generation) < share));
}

function fill(segments: string[], slots: Recording['slots'], copy: number): string {
  let out = segments[0]!;
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i]!;
    out += ('id' in slot ? copyId(slot.id, copy) : `${slot.boardUrl}~${copy}`) + segments[i + 1]!;
  }
  return out;
}

function body(recording: Recording, copy: number, changed: Set<string>): string {
  if (changed.size === 0) return fill(recording.segments, recording.slots, copy);
  const parsed = JSON.parse(recording.raw) as { jobs: Array<Record<string, unknown>> };
  for (const job of parsed.jobs) {
    if (!changed.has(job['id'] as string)) continue;
    if (typeof job['descriptionHtml'] === 'string') job['descriptionHtml'] += '<p>This posting was updated.</p>';
    if (typeof job['descriptionPlain'] === 'string') job['descriptionPlain'] += '\n\nThis posting was updated.';
  }
  const edited = cut(JSON.stringify(parsed), recording.board, new Set(recording.postingIds.concat(recording.slots.flatMap((s) => ('id' in s ? [s.id] : [])))));
  return fill(edited.segments, edited.slots, copy);
}

const inFlight = new Map<string, number>();
const peak = new Map<string, number>();
let requests = 0;
let notModified = 0;
let bytes = 0;

const server = http.createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/__bench/stats') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ generation, share, requests, notModified, bytes, peakInFlightPerHost: Object.fromEntries(peak) }));
    return;
  }
  if (url.pathname === '/__bench/boards') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(recordings.map((r) => ({ board: r.board, postings: r.postingIds.length }))));
    return;
  }
  if (url.pathname === '/__bench/generation' && request.method === 'POST') {
    generation = Number(url.searchParams.get('n') ?? 0);
    share = Number(url.searchParams.get('share') ?? 0);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ generation, share }));
    return;
  }
  const match = /^\/posting-api\/job-board\/([^/]+)$/.exec(url.pathname);
  const token = match ? decodeURIComponent(match[1]!) : '';
  const cut = token.lastIndexOf('~');
  const recording = cut > 0 ? byBoard.get(token.slice(0, cut)) : undefined;
  const copy = cut > 0 ? Number(token.slice(cut + 1)) : NaN;
  if (!recording || !Number.isSafeInteger(copy) || copy < 0) {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ success: false, errors: ['job board not found'] }));
    return;
  }
  const host = request.headers.host ?? '';
  const now = (inFlight.get(host) ?? 0) + 1;
  inFlight.set(host, now);
  if (now > (peak.get(host) ?? 0)) peak.set(host, now);
  response.once('close', () => inFlight.set(host, (inFlight.get(host) ?? 1) - 1));
  requests++;
  const changed = changedIds(recording, copy);
  const etag = `"${copy}-g${changed.size > 0 ? generation : 0}"`;
  if (request.headers['if-none-match'] === etag) {
    notModified++;
    response.writeHead(304, { etag });
    response.end();
    return;
  }
  const payload = Buffer.from(body(recording, copy, changed));
  bytes += payload.length;
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length, etag });
  response.end(payload);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.stdout.write(`listening ${process.env.PORT}\n`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
