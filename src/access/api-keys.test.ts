import { describe, expect, it } from 'vitest';
import { hashKey, keyFromAuthorization, keyMatches, keyPrefixOf, newKeyMaterial } from './api-keys.ts';

describe('API key secrets', () => {
  it('carry their non-secret prefix and hash to SHA-256', () => {
    const key = newKeyMaterial();
    expect(key.secret.startsWith(`${key.keyPrefix}_`)).toBe(true);
    expect(keyPrefixOf(key.secret)).toBe(key.keyPrefix);
    expect(key.hash.toString('hex')).toBe(hashKey(key.secret).toString('hex'));
    expect(key.hash).toHaveLength(32);
  });

  it('keep the prefix across a rotation but change the secret', () => {
    const first = newKeyMaterial();
    const rotated = newKeyMaterial(first.keyPrefix);
    expect(rotated.keyPrefix).toBe(first.keyPrefix);
    expect(rotated.secret).not.toBe(first.secret);
    expect(keyMatches(first.secret, rotated.hash)).toBe(false);
    expect(keyMatches(rotated.secret, rotated.hash)).toBe(true);
  });

  it('accept the spec spellings of the Authorization header and nothing else', () => {
    const { secret } = newKeyMaterial();
    for (const header of [`Bearer ${secret}`, `bearer ${secret}`, `BEARER ${secret}`, secret, `  Bearer   ${secret} `]) {
      expect(keyFromAuthorization(header)).toBe(secret);
    }
    expect(keyFromAuthorization(`Basic ${secret}`)).toBeUndefined();
    expect(keyFromAuthorization('')).toBeUndefined();
    expect(keyFromAuthorization(undefined)).toBeUndefined();
  });

  it('refuse a key with no stored hash', () => {
    expect(keyMatches(newKeyMaterial().secret, undefined)).toBe(false);
  });

  it('reject malformed key strings before any lookup', () => {
    expect(keyPrefixOf('jl_short_abc')).toBeUndefined();
    expect(keyPrefixOf('not-a-key')).toBeUndefined();
  });
});
