/**
 * The served Company shape of a directory row (spec: Resources › Company; GET /v1/companies and
 * /v1/companies/{slug}).
 */
import type { Company } from '../../domain/company.ts';
import type { CompanyDirectoryRow } from '../../store/company-directory.ts';
import { omittedWhenEmpty } from './omitted.ts';

/**
 * Map a directory row to the served Company: empty values are left undefined, which the serializers
 * omit (spec: all fields optional). One object literal with every key, as presenters/job.ts does, so
 * every company has the same hidden class.
 */
export function toCompany(row: CompanyDirectoryRow): Company {
  // A website is published only together with the date of the check that proved it.
  const proven = Boolean(row.website && row.website_verified_at);
  return {
    slug: row.slug,
    name: row.name,
    open_roles: row.open_roles,
    own_site_roles: row.own_site_roles,
    source_types: [...row.source_types].sort() as Company['source_types'],
    first_seen: row.first_seen,
    domain: omittedWhenEmpty(row.domain),
    website: proven ? omittedWhenEmpty(row.website) : undefined,
    website_verified: proven ? omittedWhenEmpty(row.website_verified_at) : undefined,
    logo: omittedWhenEmpty(row.logo_url),
    country: omittedWhenEmpty(row.country),
    industry: omittedWhenEmpty(row.industry),
    org_type: omittedWhenEmpty(row.org_type) as Company['org_type'],
    sectors: row.sectors && row.sectors.length > 0 ? row.sectors : undefined,
    careers_url: omittedWhenEmpty(row.careers_url),
  };
}
