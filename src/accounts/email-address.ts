/**
 * E-mail addresses as the website keys accounts, subscriptions and opt-outs by.
 */

/** Longest address accepted (RFC 5321 §4.5.3.1.3: a path holds at most 256 octets, so 254 for the address). */
export const MAX_EMAIL_LENGTH = 254;

const ADDRESS = /^[^\s@<>()[\]\\,;:"]{1,64}@((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})$/;

/**
 * Normalize a submitted address: trimmed and lower-cased whole (mail providers treat the local part
 * case-insensitively in practice, and one person must not get two accounts by changing case).
 * @returns undefined when it is not an address `user@host.tld` of at most 254 characters.
 */
export function normalizeEmail(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const value = input.trim().toLowerCase();
  if (value.length === 0 || value.length > MAX_EMAIL_LENGTH) return undefined;
  return ADDRESS.test(value) ? value : undefined;
}

/** The domain part of a normalized address. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}
