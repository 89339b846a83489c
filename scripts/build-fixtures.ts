/**
 * Rebuild the recorded-payload fixtures from the shared data tarballs, so the demo's choice of boards
 * is reproducible and every fixture byte can be traced to its origin.
 *
 *   node scripts/build-fixtures.ts [--data <shared data dir>] [--out <fixtures dir>]
 *
 * Defaults: `--data ../shared/data` and `--out fixtures`, both relative to the repository root.
 *
 * What it writes (and nothing else):
 * - `fixtures/ashby/<board>.json.gz`: the untouched member `<board>.json` of `ashby/boards.tar.gz`,
 *   gzip-compressed, for each board in {@link ASHBY_BOARDS}. Member names are URL-encoded board tokens
 *   (`Synergy%20Pet%20Group.json`); the fixture file is named by the decoded token
 *   (`Synergy Pet Group.json.gz`), which is what the replay server looks up. Stale `.json.gz` files in
 *   that folder are removed, so the folder is exactly the list below.
 * - `fixtures/usajobs/<file>.json.gz` for each file in {@link USAJOBS_FILES} (stale ones removed), and
 *   `fixtures/usajobs/LICENSE` copied from the tarball's `LICENSE.source`.
 * - `fixtures/ashby/LICENSE` (the MIT notice of the recording, github.com/stapply-ai/ats-scrapers).
 * - `fixtures/manifest.json`: the demo's crawl targets, recorded payloads only (`"recorded": true`):
 *   Ashby boards with their company display names, the recorded Greenhouse (Anthropic) and Lever
 *   (Spotify) boards (copied untouched by hand from the shared data, not generated here) and the USAJOBS
 *   files.
 * - `fixtures/test-targets.json`: the hand-written targets (`"recorded": false`), which only tests import.
 *
 * After writing, each gzip is decompressed again and compared byte for byte with the tarball member,
 * and the script prints counts and sizes. Payload bytes are never changed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import type { ConnectorId } from '../src/ingest/connectors/registry.ts';

/** One demo crawl target as written to `fixtures/manifest.json`. */
interface ManifestEntry {
  provider: ConnectorId;
  /** Board token / site / file stem exactly as the source API spells it. */
  board: string;
  /** True for an untouched recorded payload; false for one this project wrote (tests only). */
  recorded: boolean;
  /** Display name of the employer, for sources whose payloads carry none. */
  company?: string;
  /** The employer's bare domain, only where it is certain. */
  domain?: string;
}

/**
 * The Ashby boards of the demo: at least 2,400 listed postings (the demo must serve 2,000+ live rows
 * after the quality gate) with a spread of countries and salary periods, two empty boards, and no
 * recruiter or staffing boards (those the service must not serve as employer-direct).
 */
const ASHBY_BOARDS: readonly { board: string; company: string; domain?: string }[] = [
  // North America. ramp: yearly, monthly and hourly salaries; finni-health: mostly hourly; decagon: a weekly one.
  { board: '1password', company: '1Password', domain: '1password.com' },
  { board: 'ramp', company: 'Ramp', domain: 'ramp.com' },
  { board: 'vanta', company: 'Vanta', domain: 'vanta.com' },
  { board: 'hims-and-hers', company: 'Hims & Hers', domain: 'hims.com' },
  { board: 'finni-health', company: 'Finni Health' },
  { board: 'Lambda', company: 'Lambda' },
  { board: 'harvey', company: 'Harvey', domain: 'harvey.ai' },
  { board: 'dandy', company: 'Dandy', domain: 'meetdandy.com' },
  { board: 'decagon', company: 'Decagon', domain: 'decagon.ai' },
  { board: 'Abridge', company: 'Abridge', domain: 'abridge.com' },
  { board: 'suno', company: 'Suno', domain: 'suno.com' },
  { board: 'replit', company: 'Replit', domain: 'replit.com' },
  { board: 'zapier', company: 'Zapier', domain: 'zapier.com' },
  { board: 'supabase', company: 'Supabase', domain: 'supabase.com' },
  { board: 'cursor', company: 'Cursor', domain: 'cursor.com' },
  { board: 'Synergy Pet Group', company: 'Synergy Pet Group' },
  { board: 'Forward Financing', company: 'Forward Financing' },
  { board: 'neofinancial', company: 'Neo Financial', domain: 'neofinancial.com' },
  { board: 'kraken.com', company: 'Kraken', domain: 'kraken.com' },
  { board: 'elevenlabs', company: 'ElevenLabs', domain: 'elevenlabs.io' },
  { board: 'Commure-Athelas', company: 'Commure', domain: 'commure.com' },
  // Europe. bliro: monthly EUR; voize: hourly EUR.
  { board: 'DeepL', company: 'DeepL', domain: 'deepl.com' },
  { board: 'roadsurfer.com', company: 'roadsurfer', domain: 'roadsurfer.com' },
  { board: 'almedia', company: 'Almedia' },
  { board: 'voodoo', company: 'Voodoo', domain: 'voodoo.io' },
  { board: 'alan', company: 'Alan', domain: 'alan.com' },
  { board: 'satispay', company: 'Satispay', domain: 'satispay.com' },
  { board: 'keyrock', company: 'Keyrock', domain: 'keyrock.com' },
  { board: 'welltech', company: 'Welltech' },
  { board: 'lovable', company: 'Lovable', domain: 'lovable.dev' },
  { board: 'multiverse', company: 'Multiverse', domain: 'multiverse.io' },
  { board: 'bitvavo', company: 'Bitvavo', domain: 'bitvavo.com' },
  { board: 'upvest', company: 'Upvest', domain: 'upvest.co' },
  { board: 'n8n', company: 'n8n', domain: 'n8n.io' },
  { board: 'cargo-one', company: 'cargo.one', domain: 'cargo.one' },
  { board: 'voize', company: 'voize' },
  { board: 'bliro', company: 'Bliro' },
  { board: 'tandem-health', company: 'Tandem Health' },
  { board: 'uipath', company: 'UiPath', domain: 'uipath.com' },
  { board: 'wayflyer', company: 'Wayflyer', domain: 'wayflyer.com' },
  // Latin America. sardine: BRL salaries.
  { board: 'dolarapp', company: 'DolarApp', domain: 'dolarapp.com' },
  { board: 'sardine', company: 'Sardine', domain: 'sardine.ai' },
  { board: 'scribd', company: 'Scribd', domain: 'scribd.com' },
  { board: 'sweedpos.com', company: 'Sweed', domain: 'sweedpos.com' },
  { board: 'withclutch', company: 'Clutch' },
  { board: 'rain', company: 'Rain' },
  // Asia and the Middle East. bjakcareer: monthly MYR; cartesia: monthly INR; sully-ai: monthly SAR.
  { board: 'bjakcareer', company: 'BJAK' },
  { board: 'ema', company: 'Ema' },
  { board: 'cartesia', company: 'Cartesia', domain: 'cartesia.ai' },
  { board: 'LeanTech', company: 'Lean Technologies' },
  { board: '9fin', company: '9fin', domain: '9fin.com' },
  { board: 'padlet', company: 'Padlet', domain: 'padlet.com' },
  { board: 'sully-ai', company: 'Sully.ai', domain: 'sully.ai' },
  { board: 'kong', company: 'Kong', domain: 'konghq.com' },
  { board: 'manusai', company: 'Manus' },
  { board: 'Aspora', company: 'Aspora' },
  // Empty boards (`"jobs": []`): an empty answer is not evidence that anything closed.
  { board: 'superhuman', company: 'Superhuman', domain: 'superhuman.com' },
  { board: 'nucleus', company: 'Nucleus' },
];

/** USAJOBS announcement files (file stems) of the demo. */
const USAJOBS_FILES: readonly string[] = ['jobs_judicial_branch', 'jobs_department_of_education', 'jobs_legislative_branch'];

/**
 * Recorded Greenhouse and Lever boards (fixtures/greenhouse/anthropic.json, fixtures/lever/spotify.json,
 * each with its `.SOURCE.md`), copied untouched from the shared data's `greenhouse/` and `lever/`.
 */
const RECORDED_ATS: readonly ManifestEntry[] = [
  { provider: 'greenhouse', board: 'anthropic', recorded: true, company: 'Anthropic', domain: 'anthropic.com' },
  { provider: 'lever', board: 'spotify', recorded: true, company: 'Spotify', domain: 'spotify.com' },
];

/** Hand-written fixtures (fixtures/greenhouse, fixtures/lever, the job-board feeds); fictional employers, tests only. */
const HAND_WRITTEN: readonly ManifestEntry[] = [
  { provider: 'greenhouse', board: 'northwindrobotics', recorded: false, company: 'Northwind Robotics' },
  { provider: 'greenhouse', board: 'brightharbor', recorded: false, company: 'Bright Harbor Health' },
  { provider: 'lever', board: 'tessellate', recorded: false, company: 'Tessellate Analytics' },
  { provider: 'lever', board: 'kestrel-mobility', recorded: false, company: 'Kestrel Mobility' },
  // Job-board / aggregator feeds (fixtures/remotive, himalayas, arbeitnow): tests crawl them to show
  // their rows stored withheld (quality_removed), never served.
  { provider: 'remotive', board: 'remote-jobs', recorded: false },
  { provider: 'himalayas', board: 'jobs', recorded: false },
  { provider: 'arbeitnow', board: 'job-board-api', recorded: false },
  // Issue 18's ATS payloads written in the documented shapes (fixtures/smartrecruiters, personio, workable/v3).
  { provider: 'smartrecruiters', board: 'LumenGrid', recorded: false, company: 'LumenGrid Energy' },
  { provider: 'personio', board: 'harbourline', recorded: false, company: 'Harbourline Logistics' },
  { provider: 'workable', board: 'v3:halcyon-bio', recorded: false, company: 'Halcyon Biosystems' },
];

const ASHBY_LICENSE = `MIT License

Copyright (c) 2025 stapply-ai

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.

---
Origin: github.com/stapply-ai/ats-scrapers, folder ashby/companies/ at commit 43ece6f: responses of
Ashby's public posting API (GET /posting-api/job-board/{board}?includeCompensation=true), recorded
2025-10-28, one file per board, untouched here except for gzip compression.
The job advertisements themselves (titles, descriptions, compensation) belong to the employers that
published them.
`;

/**
 * Read every regular file of a gzip-compressed tar archive (ustar, with GNU long names and pax
 * headers) into memory: name (without a leading `./`) → bytes.
 */
function readTarGz(file: string): Map<string, Buffer> {
  const tar = zlib.gunzipSync(fs.readFileSync(file));
  const files = new Map<string, Buffer>();
  const field = (header: Buffer, start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
  let offset = 0;
  let longName: string | undefined;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] || 0x30);
    const prefix = field(header, 345, 155);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    let name = longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    longName = undefined;
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0.*$/s, '');
    } else if (type === 'x') {
      const pathRecord = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      if (pathRecord) longName = pathRecord[1];
    } else if (type === '0' || type === '\0') {
      name = name.replace(/^\.\//, '');
      files.set(name, Buffer.from(body));
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** Write `bytes` gzip-compressed to `file` and prove the round trip is byte-identical. Returns the gzip size. */
function writeGzip(file: string, bytes: Buffer): number {
  const gz = zlib.gzipSync(bytes, { level: 9 });
  fs.writeFileSync(file, gz);
  const back = zlib.gunzipSync(fs.readFileSync(file));
  if (sha256(back) !== sha256(bytes)) throw new Error(`round trip of ${file} changed the payload`);
  return gz.length;
}

function parseArgs(argv: readonly string[]): { data: string; out: string } {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  let data = path.resolve(root, '../shared/data');
  let out = path.resolve(root, 'fixtures');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if ((arg === '--data' || arg === '--out') && value !== undefined) {
      if (arg === '--data') data = path.resolve(value);
      else out = path.resolve(value);
      i++;
    } else {
      throw new Error(`usage: node scripts/build-fixtures.ts [--data <shared data dir>] [--out <fixtures dir>] (unexpected "${arg}")`);
    }
  }
  return { data, out };
}

function main(): void {
  const { data, out } = parseArgs(process.argv.slice(2));
  const manifest: ManifestEntry[] = [];

  // Ashby boards.
  const ashbyDir = path.join(out, 'ashby');
  fs.mkdirSync(ashbyDir, { recursive: true });
  const boards = readTarGz(path.join(data, 'ashby', 'boards.tar.gz'));
  const wanted = new Set(ASHBY_BOARDS.map((b) => `${b.board}.json.gz`));
  for (const existing of fs.readdirSync(ashbyDir)) {
    if (existing.endsWith('.json.gz') && !wanted.has(existing)) fs.rmSync(path.join(ashbyDir, existing));
  }
  let listed = 0;
  let ashbyBytes = 0;
  for (const { board, company, domain } of ASHBY_BOARDS) {
    const member = `${encodeURIComponent(board)}.json`;
    const bytes = boards.get(member);
    if (!bytes) throw new Error(`ashby/boards.tar.gz has no member ${member}`);
    const jobs = (JSON.parse(bytes.toString('utf8')) as { jobs: { isListed?: boolean }[] }).jobs;
    const count = jobs.filter((j) => j.isListed !== false).length;
    listed += count;
    const size = writeGzip(path.join(ashbyDir, `${board}.json.gz`), bytes);
    ashbyBytes += size;
    manifest.push({ provider: 'ashby', board, recorded: true, company, ...(domain ? { domain } : {}) });
    console.log(`ashby ${board.padEnd(20)} ${String(count).padStart(4)} listed  ${String(bytes.length).padStart(9)} B -> ${String(size).padStart(8)} B gz`);
  }
  fs.writeFileSync(path.join(ashbyDir, 'LICENSE'), ASHBY_LICENSE);

  manifest.push(...RECORDED_ATS);

  // USAJOBS announcement files.
  const usajobsDir = path.join(out, 'usajobs');
  fs.mkdirSync(usajobsDir, { recursive: true });
  const announcements = readTarGz(path.join(data, 'usajobs', 'announcements.tar.gz'));
  const wantedFiles = new Set(USAJOBS_FILES.map((stem) => `${stem}.json.gz`));
  for (const existing of fs.readdirSync(usajobsDir)) {
    if (existing.endsWith('.json.gz') && !wantedFiles.has(existing)) fs.rmSync(path.join(usajobsDir, existing));
  }
  let usajobsRows = 0;
  for (const stem of USAJOBS_FILES) {
    const bytes = announcements.get(`${stem}.json`);
    if (!bytes) throw new Error(`usajobs/announcements.tar.gz has no member ${stem}.json`);
    const rows = (JSON.parse(bytes.toString('utf8')) as unknown[]).length;
    usajobsRows += rows;
    const size = writeGzip(path.join(usajobsDir, `${stem}.json.gz`), bytes);
    manifest.push({ provider: 'usajobs', board: stem, recorded: true });
    console.log(`usajobs ${stem.padEnd(30)} ${String(rows).padStart(5)} rows  ${String(bytes.length).padStart(9)} B -> ${String(size).padStart(8)} B gz`);
  }
  const license = announcements.get('LICENSE.source');
  if (!license) throw new Error('usajobs/announcements.tar.gz has no LICENSE.source');
  fs.writeFileSync(path.join(usajobsDir, 'LICENSE'), license);

  fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'test-targets.json'), `${JSON.stringify(HAND_WRITTEN, null, 2)}\n`);
  console.log(`\n${ASHBY_BOARDS.length} Ashby boards, ${listed} listed postings, ${ashbyBytes} B gzipped; ${USAJOBS_FILES.length} USAJOBS files, ${usajobsRows} announcements; manifest: ${manifest.length} targets`);
}

main();
