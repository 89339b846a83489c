/**
 * Internet domain names as the ledger keys employers by (spec: Company slug rules, "Use
 * `company_domain` as the stable key"; `company_domain` filter, "a scheme or path is tolerated").
 *
 * `company_domain` is the **registrable domain** (issue #15 class 6): the public suffix plus one label,
 * read with the Public Suffix List through `tldts` (`careers.acme.co.uk` → `acme.co.uk`,
 * `jobs.example.com.au` → `example.com.au`). The list's private section counts too, so a company site
 * on a hosting suffix keeps its own name (`acme.github.io` stays `acme.github.io`, not `github.io`).
 */
import { getDomain } from 'tldts';

/** The host of a URL or host text: no scheme, path, port or leading `www.`; lower case. */
function hostOf(input: string): string | undefined {
  const trimmed = input.trim().toLowerCase();
  if (!trimmed) return undefined;
  try {
    return new URL(trimmed.includes('://') ? trimmed : `http://${trimmed}`).hostname.replace(/^www\./, '');
  } catch {
    return undefined;
  }
}

/**
 * Reduce a URL or host to its registrable domain, lower case.
 * `https://www.Acme.com/careers` → `acme.com`; `careers.acme.co.uk` → `acme.co.uk`.
 * @returns undefined when the input has no registrable domain (an IP address, `localhost`, a bare
 *          public suffix such as `co.uk`, text that is no host).
 */
export function bareDomain(input: string): string | undefined {
  const host = hostOf(input);
  if (!host || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(host)) return undefined;
  return getDomain(host, { allowPrivateDomains: true }) ?? undefined;
}

/**
 * The host without `www.` as keys were made before registrable domains (`careers.acme.co.uk` stays
 * whole). Only for finding company rows keyed that way, so their ids stay stable (store/companies.ts).
 * @returns undefined where {@link bareDomain} would be, or when it equals {@link bareDomain}.
 */
export function legacyHostDomain(input: string): string | undefined {
  const host = hostOf(input);
  if (!host || !/^[a-z0-9.-]+\.[a-z]{2,}$/.test(host)) return undefined;
  const registrable = bareDomain(input);
  return registrable && registrable !== host ? host : undefined;
}
