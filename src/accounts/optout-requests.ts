/**
 * Employer opt-outs asked for on the website (spec: What the service does, item 10; Website routes
 * `optout/request`, `optout/verify`; issue 14). The verification link goes to an address at the
 * domain or at its registrable parent (`jobs.acme.co.uk` may be confirmed from `@acme.co.uk`, the
 * registrable domain by the Public Suffix List, through tldts); verifying records the opt-out through
 * the opt-out code the CLI uses (`store/optouts.ts addOptout`), which withholds the employer's rows
 * as `optout_hidden` at once and emits `withdrawn` on the change feed. An operator can revoke it with
 * `jobledger optout revoke`.
 */
import type { Kysely } from 'kysely';
import { getDomain } from 'tldts';
import { bareDomain } from '../domain/domain-name.ts';
import { ApiError } from '../domain/errors.ts';
import { addOptout, OptoutInputError } from '../store/optouts.ts';
import type { DB } from '../store/schema.ts';
import { emailDomain, normalizeEmail } from './email-address.ts';
import { issueEmailToken, redeemEmailToken } from './email-links.ts';

/**
 * Check an opt-out request: a domain that has a registrable part, and an address at it or at its
 * registrable parent.
 * @throws ApiError bad_domain, bad_email or email_not_at_domain.
 */
export function optoutTarget(domainInput: unknown, emailInput: unknown): { domain: string; email: string } {
  const domain = typeof domainInput === 'string' && domainInput.length <= 253 ? bareDomain(domainInput) : undefined;
  const registrable = domain ? getDomain(domain) : null;
  if (!domain || !registrable) throw new ApiError('bad_domain', '"domain" must be the employer\'s domain name, e.g. example.com.');
  const email = normalizeEmail(emailInput);
  if (!email) throw new ApiError('bad_email', '"email" must be an e-mail address such as hr@example.com.');
  const at = emailDomain(email);
  if (at !== domain && at !== registrable) {
    throw new ApiError('email_not_at_domain', `The confirmation goes to an address at ${domain}${registrable !== domain ? ` or ${registrable}` : ''}; ${email} is not one.`);
  }
  return { domain, email };
}

/** Make the verification token of an opt-out request. @returns the token for the link. */
export async function issueOptoutToken(db: Kysely<DB>, target: { domain: string; email: string }, ttlSeconds: number, now: Date = new Date()): Promise<string> {
  return issueEmailToken(db, 'optout', target.email, target.domain, ttlSeconds, now);
}

/** What confirming an opt-out did. */
export interface ConfirmedOptout {
  domain: string;
  /** False when an active opt-out already covered the domain (nothing changed). */
  recorded: boolean;
  /** Rows withheld now, and how many of them had been served (each emitted `withdrawn`). */
  hidden: number;
  withdrawn: number;
}

/**
 * Spend an opt-out token and record the opt-out.
 * @throws ApiError link_invalid when the token is unknown, used or expired.
 */
export async function confirmOptout(db: Kysely<DB>, token: unknown, now: Date = new Date()): Promise<ConfirmedOptout> {
  const spent = await redeemEmailToken(db, token, 'optout', now);
  if (!spent || !spent.subject) throw new ApiError('link_invalid', 'This opt-out link is unknown, already used or expired; ask for a new one.');
  try {
    const result = await addOptout(db, { domain: spent.subject, verifiedBy: `website: e-mailed link confirmed by ${spent.email}`, verifiedAt: now }, now);
    return { domain: spent.subject, recorded: true, hidden: result.hidden, withdrawn: result.withdrawn };
  } catch (error) {
    if (error instanceof OptoutInputError) return { domain: spent.subject, recorded: false, hidden: 0, withdrawn: 0 };
    throw error;
  }
}
