/**
 * The company repository: finds or creates the employer a posting belongs to.
 *
 * Identity: the bare domain when known (`domain:<domain>`), otherwise the folded display name
 * (`name:<name>`), as `identityKey` (domain/employer.ts) computes it. The slug derives from the display
 * name; when another company already holds that slug, the newcomer gets a short hash suffix of its
 * identity (spec: Company slug instability rule 2).
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { bareDomain, legacyHostDomain } from '../domain/domain-name.ts';
import { identityKey } from '../domain/employer.ts';
import { slugify } from '../domain/slug.ts';
import type { DB } from './schema.ts';

export interface CompanyInput {
  name: string;
  /** Bare domain, when known. */
  domain?: string;
  logoUrl?: string;
}

export interface CompanyRef {
  id: string;
  slug: string;
  name: string;
}

function suffixed(slug: string, key: string): string {
  return `${slug}-${createHash('sha256').update(key).digest('hex').slice(0, 6)}`;
}

/** Advisory lock serializing company creation and renames, so concurrent crawls never pick one slug twice. */
const COMPANY_SLUG_LOCK = 4_711_002;

/**
 * Find the company for `input`, creating it on first sight. A changed display name or logo is
 * written back; the slug follows the name and the old slug goes to the history table (301 later).
 * Runs in its own short transaction (concurrent crawls of other boards may create companies too).
 */
export async function resolveCompany(db: Kysely<DB>, input: CompanyInput): Promise<CompanyRef> {
  const key = identityKey(input);
  await rekeyLegacyHost(db, input, key);
  const known = await db.selectFrom('companies').select(['id', 'slug', 'name', 'logo_url']).where('identity_key', '=', key).executeTakeFirst();
  if (known && known.name === input.name && (input.logoUrl === undefined || known.logo_url === input.logoUrl)) {
    return { id: known.id, slug: known.slug, name: known.name };
  }
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${COMPANY_SLUG_LOCK})`.execute(trx);
    return createOrRename(trx, input, key);
  });
}

async function createOrRename(trx: Transaction<DB>, input: CompanyInput, key: string): Promise<CompanyRef> {
  const domain = input.domain ? bareDomain(input.domain) : undefined;
  const existing = await trx.selectFrom('companies').select(['id', 'slug', 'name', 'logo_url']).where('identity_key', '=', key).executeTakeFirst();

  if (existing) {
    if (existing.name === input.name && (input.logoUrl === undefined || existing.logo_url === input.logoUrl)) {
      return { id: existing.id, slug: existing.slug, name: existing.name };
    }
    let slug = existing.slug;
    if (existing.name !== input.name) {
      slug = await freeSlug(trx, slugify(input.name, 'company'), key, existing.id);
      if (slug !== existing.slug) {
        await trx
          .insertInto('company_slug_history')
          .values({ old_slug: existing.slug, company_id: existing.id })
          .onConflict((oc) => oc.column('old_slug').doUpdateSet({ company_id: existing.id, retired_at: new Date() }))
          .execute();
        await trx.deleteFrom('company_slug_history').where('old_slug', '=', slug).execute();
      }
    }
    await trx
      .updateTable('companies')
      .set({ name: input.name, slug, logo_url: input.logoUrl ?? existing.logo_url, updated_at: new Date() })
      .where('id', '=', existing.id)
      .execute();
    await trx.updateTable('jobs').set({ company_name: input.name }).where('company_id', '=', existing.id).execute();
    return { id: existing.id, slug, name: input.name };
  }

  const slug = await freeSlug(trx, slugify(input.name, 'company'), key, null);
  const created = await trx
    .insertInto('companies')
    .values({ slug, name: input.name, identity_key: key, domain: domain ?? null, logo_url: input.logoUrl ?? null })
    .returning(['id', 'slug', 'name'])
    .executeTakeFirstOrThrow();
  return created;
}

/**
 * A company row keyed by a whole host before keys became registrable domains
 * (`domain:careers.acme.co.uk`, now `domain:acme.co.uk`) takes the new key and domain, so the
 * employer keeps its id and slug. Nothing happens when no such row exists or a row already has the
 * new key.
 */
async function rekeyLegacyHost(db: Kysely<DB>, input: CompanyInput, key: string): Promise<void> {
  const host = input.domain ? legacyHostDomain(input.domain) : undefined;
  if (!host || !key.startsWith('domain:')) return;
  const taken = await db.selectFrom('companies').select('id').where('identity_key', '=', key).executeTakeFirst();
  if (taken) return;
  await db
    .updateTable('companies')
    .set({ identity_key: key, domain: key.slice('domain:'.length), updated_at: new Date() })
    .where('identity_key', '=', `domain:${host}`)
    .execute();
}

/** The bare slug if free (or already ours), else the hash-suffixed one. */
async function freeSlug(trx: Transaction<DB>, base: string, key: string, ownId: string | null): Promise<string> {
  for (const candidate of [base, suffixed(base, key)]) {
    const holder = await trx.selectFrom('companies').select('id').where('slug', '=', candidate).executeTakeFirst();
    const retired = await trx.selectFrom('company_slug_history').select('company_id').where('old_slug', '=', candidate).executeTakeFirst();
    const takenByOther = (holder && holder.id !== ownId) || (retired && retired.company_id !== ownId);
    if (!takenByOther) return candidate;
  }
  // Two identities whose suffixed slugs collide too: extremely unlikely; fall back to a longer hash.
  return `${base}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** A company whose website is due for a check. */
export interface WebsiteCheckCandidate {
  id: string;
  slug: string;
  name: string;
  domain: string;
}

/**
 * Companies with a domain whose website was never checked, or last checked before `checkedBefore`;
 * least recently checked first (never-checked first of all), at most `limit`.
 */
export async function companiesDueForWebsiteCheck(db: Kysely<DB>, checkedBefore: Date, limit: number): Promise<WebsiteCheckCandidate[]> {
  const rows = await db
    .selectFrom('companies')
    .select(['id', 'slug', 'name', 'domain'])
    .where('domain', 'is not', null)
    .where((eb) => eb.or([eb('website_checked_at', 'is', null), eb('website_checked_at', '<', checkedBefore)]))
    .orderBy('website_checked_at', (ob) => ob.asc().nullsFirst())
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, domain: r.domain! }));
}

/**
 * Record a website check of company `id` at `checkedAt`. `proof`: the proven website and the UTC date
 * (`YYYY-MM-DD`) of the check; null clears an earlier proof; undefined keeps it.
 */
export async function recordWebsiteCheck(db: Kysely<DB>, id: string, checkedAt: Date, proof: { website: string; verifiedOn: string } | null | undefined): Promise<void> {
  const set =
    proof === undefined
      ? { website_checked_at: checkedAt }
      : { website: proof?.website ?? null, website_verified_at: proof?.verifiedOn ?? null, website_checked_at: checkedAt };
  await db.updateTable('companies').set(set).where('id', '=', id).execute();
}
