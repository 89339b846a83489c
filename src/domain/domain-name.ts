/**
 * Internet domain names as the ledger keys employers by (spec: Company slug rules, "Use
 * `company_domain` as the stable key"; `company_domain` filter, "a scheme or path is tolerated").
 */

/**
 * Reduce a URL or host to a bare domain: no scheme, path, port or leading `www.`; lower case.
 * `https://www.Acme.com/careers` → `acme.com`.
 * @returns undefined when no domain with a top-level part can be read from the input.
 */
export function bareDomain(input: string): string | undefined {
  const trimmed = input.trim().toLowerCase();
  if (!trimmed) return undefined;
  try {
    const host = new URL(trimmed.includes('://') ? trimmed : `http://${trimmed}`).hostname;
    const bare = host.replace(/^www\./, '');
    return /^[a-z0-9.-]+\.[a-z]{2,}$/.test(bare) ? bare : undefined;
  } catch {
    return undefined;
  }
}
