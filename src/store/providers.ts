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

/** A provider as a connector's descriptor declares it (ingest/connectors/registry.ts providerRows). */
export interface ProviderInput {
  id: string;
  label: string;
  providerClass: string;
  sourceType: string;
  redistributable: boolean;
  discoveryOnly: boolean;
}

/**
 * Insert or update the given provider rows in one statement (the connectors' descriptors are the
 * source of truth; migrations 001 and 007 seeded the same rows). Rows of other providers are kept.
 * @throws when a value breaks the table's CHECKs (an unknown provider_class or source_type).
 */
export async function upsertProviders(db: Kysely<DB>, providers: readonly ProviderInput[]): Promise<void> {
  if (providers.length === 0) return;
  await db
    .insertInto('providers')
    .values(
      providers.map((p) => ({
        id: p.id,
        label: p.label,
        provider_class: p.providerClass,
        source_type: p.sourceType,
        redistributable: p.redistributable,
        discovery_only: p.discoveryOnly,
      })),
    )
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        label: eb.ref('excluded.label'),
        provider_class: eb.ref('excluded.provider_class'),
        source_type: eb.ref('excluded.source_type'),
        redistributable: eb.ref('excluded.redistributable'),
        discovery_only: eb.ref('excluded.discovery_only'),
      })),
    )
    .execute();
}
