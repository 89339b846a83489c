/**
 * The bundled real feeds (`fixtures/`): recorded payloads of real boards with their licences, replayed
 * by the loopback replay server for the demo and the tests, and the manifest that names each board's
 * employer (Ashby and Lever payloads carry no company name).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { isConnectorId } from './connectors/registry.ts';
import { listTargets, upsertTarget } from '../store/crawl-targets.ts';
import type { CrawlTargetRow, DB } from '../store/schema.ts';

/** The bundled fixtures folder. */
export const FIXTURES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures');

interface ManifestEntry {
  provider: string;
  board: string;
  company?: string;
  domain?: string;
}

/**
 * Register every bundled board as a crawl target; returns their rows.
 * @throws Error when the manifest names an unknown provider.
 */
export async function seedBundledTargets(db: Kysely<DB>): Promise<CrawlTargetRow[]> {
  const manifest = JSON.parse(await readFile(path.join(FIXTURES_DIR, 'manifest.json'), 'utf8')) as ManifestEntry[];
  const ids: string[] = [];
  for (const entry of manifest) {
    if (!isConnectorId(entry.provider)) throw new Error(`fixtures/manifest.json names an unknown provider "${entry.provider}"`);
    ids.push(await upsertTarget(db, { providerId: entry.provider, board: entry.board, companyName: entry.company, companyDomain: entry.domain }));
  }
  return listTargets(db, { ids });
}
