import { describe, expect, it } from 'vitest';
import { clientKey, KEYLESS_BURST, KeylessLimiter } from './keyless-limit.ts';

describe('the keyless limit', () => {
  it('counts IPv4 per address and IPv6 per /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:ffff:ffff:ffff:fffe'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
  });

  it(`allows ${KEYLESS_BURST} requests per window and address, then asks to retry within the window`, async () => {
    const limiter = new KeylessLimiter({ kind: 'memory' });
    for (let i = 0; i < KEYLESS_BURST; i++) expect((await limiter.take('198.51.100.1')).allowed).toBe(true);
    const refused = await limiter.take('198.51.100.1');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(5);
    expect((await limiter.take('198.51.100.2')).allowed).toBe(true);
  });

  it('can be turned off', async () => {
    const limiter = new KeylessLimiter({ kind: 'memory' }, 0);
    for (let i = 0; i < 50; i++) expect((await limiter.take('198.51.100.1')).allowed).toBe(true);
  });
});
