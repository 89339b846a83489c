/**
 * Who an employer is: the identity a company row is matched by, and whether a verified opt-out covers
 * an employer (spec: withheld kind `optout_hidden`). Pure; the store keeps the rows.
 */
import { bareDomain, legacyHostDomain } from './domain-name.ts';

/** What a posting says about its employer. */
export interface EmployerRef {
  name: string;
  /** The employer's domain or URL, when known. */
  domain?: string;
}

/**
 * The identity a company row is matched by: `domain:<registrable domain>` (domain-name.ts) when the
 * domain is known, else
 * `name:<folded name>` (NFKC, lower case, runs of white space made one space).
 */
export function identityKey(employer: EmployerRef): string {
  const domain = employer.domain ? bareDomain(employer.domain) : undefined;
  if (domain) return `domain:${domain}`;
  return `name:${employer.name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()}`;
}

/** The active opt-outs in the form the quality gate needs. */
export interface ActiveOptouts {
  /** Bare domains. */
  domains: ReadonlySet<string>;
  /** Company identity keys (`domain:...` / `name:...`) of opted-out company rows. */
  identityKeys: ReadonlySet<string>;
}

/**
 * Does an active opt-out cover the employer: by its registrable domain (an opt-out for `acme.co.uk`
 * covers `careers.acme.co.uk`), by the whole host an older opt-out may have been recorded with, or by
 * its company row's identity?
 */
export function isOptedOut(optouts: ActiveOptouts, employer: EmployerRef): boolean {
  const domain = employer.domain ? bareDomain(employer.domain) : undefined;
  if (domain && optouts.domains.has(domain)) return true;
  const host = employer.domain ? legacyHostDomain(employer.domain) : undefined;
  if (host && optouts.domains.has(host)) return true;
  return optouts.identityKeys.has(identityKey(employer));
}
