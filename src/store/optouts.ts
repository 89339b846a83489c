/**
 * Verified employer opt-outs (spec: What the service does, item 10, withheld kind `optout_hidden`
 * "a verified employer opt-out"). The website's opt-out request and verification routes are not part
 * of this project yet; an operator records an opt-out after verifying it (`jobledger optout add`).
 *
 * An opt-out matches an employer by its bare domain, by its company row, or both. Recording one hides
 * the employer's rows at once (one transaction: rows withheld as `optout_hidden`, rule
 * `employer.opted_out`, a `withdrawn` change event for every row that was served), through the
 * ledger's own locking and change recording (`withholdOptedOut` in ledger.ts); every later crawl
 * keeps them hidden through the quality gate. Revoking one keeps the record (`revoked_at`) and clears
 * the validators of the crawl targets that hold the employer's rows, so their next crawl fetches in
 * full and the gate judges those rows again (they return as `updated` if nothing else withholds them).
 */
import { sql, type Kysely } from 'kysely';
import { OPTOUT_RULE_ID } from '../domain/quality.ts';
import { bareDomain } from '../domain/domain-name.ts';
import type { ActiveOptouts } from '../domain/employer.ts';
import { withholdOptedOut } from './ledger.ts';
import type { DB } from './schema.ts';

/** Thrown for operator input that cannot be recorded; the message names the problem. */
export class OptoutInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptoutInputError';
  }
}

export interface OptoutInput {
  /** The employer's domain (any URL or host; reduced to the bare domain). */
  domain?: string;
  /** The employer's company slug (as served in `company_slug`). */
  companySlug?: string;
  /** Who verified the request and how. */
  verifiedBy: string;
  verifiedAt: Date;
  note?: string;
}

export interface OptoutRecord {
  id: string;
  domain: string | null;
  companyId: string | null;
  companySlug: string | null;
  verifiedBy: string;
  verifiedAt: Date;
  note: string | null;
  revokedAt: Date | null;
}

/** Load every active opt-out. */
export async function loadActiveOptouts(db: Kysely<DB>): Promise<ActiveOptouts> {
  const rows = await db
    .selectFrom('employer_optouts as o')
    .leftJoin('companies as c', 'c.id', 'o.company_id')
    .select(['o.domain', 'c.identity_key'])
    .where('o.revoked_at', 'is', null)
    .execute();
  return {
    domains: new Set(rows.map((r) => r.domain).filter((d): d is string => d !== null)),
    identityKeys: new Set(rows.map((r) => r.identity_key).filter((k): k is string => k !== null)),
  };
}

/**
 * Record a verified opt-out and hide the employer's rows now.
 * @returns the record and how many rows were hidden and how many of them had been served.
 * @throws OptoutInputError when neither a valid domain nor a known company slug is given, or an
 *         active opt-out for the same domain or company exists.
 */
export async function addOptout(db: Kysely<DB>, input: OptoutInput, now: Date = new Date()): Promise<{ id: string; hidden: number; withdrawn: number }> {
  const domain = input.domain !== undefined ? bareDomain(input.domain) : undefined;
  if (input.domain !== undefined && !domain) throw new OptoutInputError(`"${input.domain}" is not a domain (expected e.g. example.com)`);
  let companyId: string | undefined;
  if (input.companySlug !== undefined) {
    const company = await db.selectFrom('companies').select('id').where('slug', '=', input.companySlug).executeTakeFirst();
    if (!company) throw new OptoutInputError(`no company with slug "${input.companySlug}" (see GET /v1/companies)`);
    companyId = company.id;
  }
  if (!domain && !companyId) throw new OptoutInputError('give the employer\'s --domain, its --company slug, or both');
  if (!input.verifiedBy.trim()) throw new OptoutInputError('say who verified the opt-out and how (--verified-by)');
  return db.transaction().execute(async (trx) => {
    const clash = await trx
      .selectFrom('employer_optouts')
      .select('id')
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([...(domain ? [eb('domain', '=', domain)] : []), ...(companyId ? [eb('company_id', '=', companyId)] : [])]))
      .executeTakeFirst();
    if (clash) throw new OptoutInputError(`an active opt-out (id ${clash.id}) already covers this employer`);
    const { id } = await trx
      .insertInto('employer_optouts')
      .values({ domain: domain ?? null, company_id: companyId ?? null, verified_by: input.verifiedBy.trim(), verified_at: input.verifiedAt, note: input.note ?? null })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { hidden, withdrawn } = await withholdOptedOut(trx, { domain, companyId }, now);
    return { id, hidden, withdrawn };
  });
}

/**
 * Revoke an active opt-out (by id). The record stays; the employer's targets are re-fetched in full
 * on their next crawl, where the gate judges their rows again.
 * @returns the number of crawl targets whose validators were cleared.
 * @throws OptoutInputError when no active opt-out has that id.
 */
export async function revokeOptout(db: Kysely<DB>, id: string, now: Date = new Date()): Promise<{ targetsReset: number }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable('employer_optouts')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returning(['domain', 'company_id'])
      .executeTakeFirst();
    if (!row) throw new OptoutInputError(`no active opt-out with id ${id} (see jobledger optout list)`);
    const targets = trx
      .selectFrom('jobs')
      .innerJoin('companies', 'companies.id', 'jobs.company_id')
      .select('jobs.target_id')
      .where('jobs.quality_rule_id', '=', OPTOUT_RULE_ID)
      .where((eb) => eb.or([...(row.domain ? [eb('companies.domain', '=', row.domain)] : []), ...(row.company_id ? [eb('companies.id', '=', row.company_id)] : [])]));
    const result = await trx
      .updateTable('crawl_targets')
      .set({ etag: null, last_modified: null })
      .where('id', 'in', sql<string>`(${targets})`)
      .executeTakeFirst();
    return { targetsReset: Number(result.numUpdatedRows) };
  });
}

/** Every opt-out, active and revoked, newest first. */
export async function listOptouts(db: Kysely<DB>): Promise<OptoutRecord[]> {
  const rows = await db
    .selectFrom('employer_optouts as o')
    .leftJoin('companies as c', 'c.id', 'o.company_id')
    .select(['o.id', 'o.domain', 'o.company_id', 'c.slug', 'o.verified_by', 'o.verified_at', 'o.note', 'o.revoked_at'])
    .orderBy('o.id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    domain: r.domain,
    companyId: r.company_id,
    companySlug: r.slug,
    verifiedBy: r.verified_by,
    verifiedAt: r.verified_at,
    note: r.note,
    revokedAt: r.revoked_at,
  }));
}
