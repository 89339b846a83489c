/**
 * The provider repository: the source systems rows come from (spec: `source`, /public/providers).
 */
import type { Kysely } from 'kysely';
import type { DB, ProviderRow } from './schema.ts';

/** Ids of providers whose rows are served (redistributable, not discovery-only), sorted. */
export async function redistributableProviderIds(db: Kysely<DB>): Promise<string[]> {
  const rows = await db
    .selectFrom('providers')
    .select('id')
    .where('redistributable', '=', true)
    .where('discovery_only', '=', false)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Every provider row. */
export async function listProviders(db: Kysely<DB>): Promise<ProviderRow[]> {
  return db.selectFrom('providers').selectAll().execute();
}
