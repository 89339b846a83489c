/**
 * The bundled feeds (`fixtures/`): payloads replayed by the loopback replay server for the demo and the
 * tests, and the two target lists that name each board's employer (Ashby and Lever payloads carry no
 * company name).
 *
 * Every target declares whether its payload is recorded (`"recorded": true`: an untouched public
 * response, kept with its licence) or hand-written by this project (`"recorded": false`).
 * - `fixtures/manifest.json` is the demo: what `npm start` (`serve --demo`), `ingest --demo` and the demo
 *   worker import. It holds recorded payloads only; {@link seedDemoTargets} refuses any other target, so
 *   no invented employer reaches the ledger the demo serves (issue 23).
 * - `fixtures/test-targets.json` holds the hand-written payloads (fictional Greenhouse and Lever
 *   employers, the job-board feeds) that tests need for their edge cases; only tests seed them
 *   ({@link seedFixtureTargets}).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { isConnectorId, type ConnectorId } from './connectors/registry.ts';
import { listTargets, upsertTarget } from '../store/crawl-targets.ts';
import type { CrawlTargetRow, DB } from '../store/schema.ts';

/** The bundled fixtures folder. */
export const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures');

/** The demo's target list (recorded payloads only). */
export const DEMO_MANIFEST = 'manifest.json';
/** The hand-written targets, for tests only. */
export const TEST_TARGETS = 'test-targets.json';

/** One declared fixture target. */
export interface FixtureTarget {
  provider: ConnectorId;
  board: string;
  /** True when the payload is an untouched recorded public response; false when this project wrote it. */
  recorded: boolean;
  /** The employer's display name, where the payload has none. */
  company?: string;
  /** The employer's domain, only where certain. */
  domain?: string;
}

/**
 * Read and check one target list under `dir`.
 * @throws Error naming the file and entry when an entry has an unknown provider or no boolean `recorded`.
 */
export async function readFixtureTargets(file: string, dir: string = FIXTURES_DIR): Promise<FixtureTarget[]> {
  const entries = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as Array<Partial<FixtureTarget>>;
  return entries.map((entry, i) => {
    const where = `fixtures/${file} entry ${i + 1} (${String(entry.provider)}:${String(entry.board)})`;
    if (!isConnectorId(String(entry.provider))) throw new Error(`${where} names an unknown provider "${String(entry.provider)}"`);
    if (typeof entry.recorded !== 'boolean') throw new Error(`${where} does not say whether its payload is recorded: set "recorded": true or false`);
    return entry as FixtureTarget;
  });
}

/**
 * The demo's targets, checked: every one must be a recorded payload.
 * @throws Error when a target is not recorded, naming it and saying where hand-written payloads belong.
 */
export async function readDemoTargets(dir: string = FIXTURES_DIR): Promise<FixtureTarget[]> {
  const targets = await readFixtureTargets(DEMO_MANIFEST, dir);
  const invented = targets.filter((t) => !t.recorded);
  if (invented.length > 0) {
    const names = invented.map((t) => `${t.provider}:${t.board}`).join(', ');
    throw new Error(`the demo import crawls recorded payloads only, and fixtures/${DEMO_MANIFEST} declares ${invented.length === 1 ? 'a hand-written target' : `${invented.length} hand-written targets`} (${names}); move hand-written payloads to fixtures/${TEST_TARGETS}, which only tests import`);
  }
  return targets;
}

async function upsertAll(db: Kysely<DB>, targets: FixtureTarget[]): Promise<CrawlTargetRow[]> {
  const ids: string[] = [];
  for (const t of targets) ids.push(await upsertTarget(db, { providerId: t.provider, board: t.board, companyName: t.company, companyDomain: t.domain }));
  return listTargets(db, { ids });
}

/**
 * Register the demo's boards (recorded payloads only) as crawl targets; returns their rows.
 * @throws Error when the manifest names an unknown provider or a target that is not recorded.
 */
export async function seedDemoTargets(db: Kysely<DB>): Promise<CrawlTargetRow[]> {
  return upsertAll(db, await readDemoTargets());
}

/**
 * For tests: register the demo's boards and the hand-written test targets; returns their rows.
 * @throws Error when a list names an unknown provider.
 */
export async function seedFixtureTargets(db: Kysely<DB>): Promise<CrawlTargetRow[]> {
  return upsertAll(db, [...(await readDemoTargets()), ...(await readFixtureTargets(TEST_TARGETS))]);
}
