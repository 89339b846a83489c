/**
 * API key secrets (spec: Authentication). A key reads `jl_<prefix>_<secret>`: `jl_<prefix>` is the
 * short non-secret `key_prefix` label and the lookup handle; the whole string is the secret. Only its
 * SHA-256 is stored, and hashes are compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const PREFIX_LENGTH = 8;
/** 32 random bytes in base64url: 43 characters, 256 bits of entropy. */
const SECRET_LENGTH = 43;
const KEY_PATTERN = new RegExp(`^jl_([${PREFIX_ALPHABET}]{${PREFIX_LENGTH}})_([A-Za-z0-9_-]{${SECRET_LENGTH}})$`);

export interface NewKeyMaterial {
  /** The full key, shown once and never stored. */
  secret: string;
  /** `jl_<8 chars>`: non-secret label, stable across rotation. */
  keyPrefix: string;
  /** SHA-256 of `secret`, 32 bytes. */
  hash: Buffer;
}

/** SHA-256 of a presented key string. */
export function hashKey(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** A fresh random key prefix (`jl_` + 8 characters from an unambiguous alphabet). */
export function newKeyPrefix(): string {
  const bytes = randomBytes(PREFIX_LENGTH);
  let prefix = '';
  for (const byte of bytes) prefix += PREFIX_ALPHABET[byte % PREFIX_ALPHABET.length];
  return `jl_${prefix}`;
}

/** New secret for `keyPrefix` (a new key, or a rotation that keeps the prefix). */
export function newKeyMaterial(keyPrefix: string = newKeyPrefix()): NewKeyMaterial {
  const secret = `${keyPrefix}_${randomBytes(32).toString('base64url')}`;
  return { secret, keyPrefix, hash: hashKey(secret) };
}

/** The `key_prefix` of a well-formed key string, or undefined. */
export function keyPrefixOf(presented: string): string | undefined {
  const match = KEY_PATTERN.exec(presented);
  return match ? `jl_${match[1]}` : undefined;
}

/**
 * Extract the key from an `Authorization` header value. Accepted (spec: Authentication, item 3):
 * `Bearer <key>` in any letter case, and the bare key with no scheme. Anything else yields undefined.
 */
export function keyFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const scheme = /^bearer\s+(\S+)$/i.exec(value);
  if (scheme) return scheme[1];
  return /^\S+$/.test(value) ? value : undefined;
}

const DUMMY_HASH = hashKey('jl_dummy_value_for_constant_time');

/**
 * Constant-time comparison of a presented key against a stored hash. When no row was found the
 * comparison still runs (against a dummy) so timing does not reveal whether a prefix exists.
 */
export function keyMatches(presented: string, storedHash: Buffer | undefined): boolean {
  const presentedHash = hashKey(presented);
  const reference = storedHash && storedHash.length === presentedHash.length ? storedHash : DUMMY_HASH;
  const equal = timingSafeEqual(presentedHash, reference);
  return equal && storedHash !== undefined && reference === storedHash;
}
