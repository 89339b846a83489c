/**
 * The served Company shape of a directory row (spec: Resources › Company; GET /v1/companies and
 * /v1/companies/{slug}).
 */
import type { Company } from '../../domain/company.ts';
import type { CompanyDirectoryRow } from '../../store/company-directory.ts';

/** Map a directory row to the served Company: empty values are left out (spec: all fields optional). */
export function toCompany(row: CompanyDirectoryRow): Company {
  const company: Company = {
    slug: row.slug,
    name: row.name,
    open_roles: row.open_roles,
    own_site_roles: row.own_site_roles,
    source_types: [...row.source_types].sort() as Company['source_types'],
    first_seen: row.first_seen,
  };
  const optional: Partial<Company> = {
    domain: row.domain ?? undefined,
    // A website is published only together with the date of the check that proved it.
    website: row.website && row.website_verified_at ? row.website : undefined,
    website_verified: row.website && row.website_verified_at ? row.website_verified_at : undefined,
    logo: row.logo_url ?? undefined,
    country: row.country ?? undefined,
    industry: row.industry ?? undefined,
    org_type: row.org_type ?? undefined,
    sectors: row.sectors && row.sectors.length > 0 ? row.sectors : undefined,
    careers_url: row.careers_url ?? undefined,
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined && value !== '') (company as Record<string, unknown>)[key] = value;
  }
  return company;
}
