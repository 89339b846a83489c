import { describe, expect, it } from 'vitest';
import { decideAbsence, decideTransition, DEFAULT_ABSENCE_POLICY, type LedgerState, type Sighting } from './lifecycle.ts';

const now = new Date('2026-11-22T12:00:00Z');
const live: Sighting = { contentHash: 'a', verdict: { verdict: 'live' }, posterTyped: false };
const servedRow: LedgerState = { status: 'live', closedReason: null, withheldKind: null, served: true, contentHash: 'a' };

describe('job status transitions', () => {
  it('create a served row with a created event', () => {
    expect(decideTransition(undefined, live, now)).toEqual({ kind: 'insert', closedUpstream: false, withheldKind: null, event: 'created' });
  });

  it('enter an announcement whose close date passed as closed, without an event', () => {
    const t = decideTransition(undefined, { ...live, upstreamClosesAt: new Date('2025-01-01T00:00:00Z') }, now);
    expect(t).toEqual({ kind: 'insert', closedUpstream: true, withheldKind: null, event: null });
  });

  it('enter a gated posting withheld, without an event', () => {
    const t = decideTransition(undefined, { ...live, verdict: { verdict: 'quality_gated', ruleId: 'apply_url.missing' } }, now);
    expect(t).toEqual({ kind: 'insert', closedUpstream: false, withheldKind: 'quality_gated', event: null });
  });

  it('only verify an unchanged row', () => {
    expect(decideTransition(servedRow, live, now)).toEqual({ kind: 'verify' });
  });

  it('emit updated when served content changes', () => {
    expect(decideTransition(servedRow, { ...live, contentHash: 'b' }, now)).toEqual({ kind: 'update', withheldKind: null, reopen: false, event: 'updated' });
  });

  it('withdraw a served row whose verdict turns against it, and bring it back as updated', () => {
    const removed = decideTransition(servedRow, { ...live, verdict: { verdict: 'quality_removed', ruleId: 'apply_url.not_employer' } }, now);
    expect(removed).toEqual({ kind: 'update', withheldKind: 'quality_removed', reopen: false, event: 'withdrawn' });
    const withheldRow: LedgerState = { ...servedRow, withheldKind: 'quality_removed', served: false };
    expect(decideTransition(withheldRow, live, now)).toEqual({ kind: 'update', withheldKind: null, reopen: false, event: 'updated' });
  });

  it('close a live row whose close date passed as delisted', () => {
    expect(decideTransition(servedRow, { ...live, upstreamClosesAt: new Date('2026-11-21T00:00:00Z') }, now)).toEqual({
      kind: 'close_expired',
      event: 'delisted',
    });
  });

  it('keep an expired row closed when it is still listed, and reopen one that comes back', () => {
    const closed: LedgerState = { status: 'closed', closedReason: 'expired_upstream', withheldKind: null, served: false, contentHash: 'a' };
    expect(decideTransition(closed, { ...live, upstreamClosesAt: new Date('2026-01-01T00:00:00Z') }, now)).toEqual({ kind: 'stay_closed', contentChanged: false });
    const notSeen: LedgerState = { ...closed, closedReason: 'not_seen' };
    expect(decideTransition(notSeen, live, now)).toEqual({ kind: 'update', withheldKind: null, reopen: true, event: 'updated' });
  });
});

describe('absence from good crawls (not_seen)', () => {
  const policy = { crawls: 3, minSeconds: 24 * 3600 };
  const seen = new Date('2026-11-20T12:00:00Z');

  it('keeps a row until it has missed enough good crawls', () => {
    expect(decideAbsence(1, seen, now, policy)).toBe('keep');
    expect(decideAbsence(2, seen, now, policy)).toBe('keep');
    expect(decideAbsence(3, seen, now, policy)).toBe('close_not_seen');
  });

  it('and until enough time has passed since it was last seen', () => {
    expect(decideAbsence(5, new Date(now.getTime() - 3600_000), now, policy)).toBe('keep');
    expect(decideAbsence(5, new Date(now.getTime() - 24 * 3600_000), now, policy)).toBe('close_not_seen');
  });

  it('has documented defaults: three good crawls and a day', () => {
    expect(DEFAULT_ABSENCE_POLICY).toEqual({ crawls: 3, minSeconds: 86_400 });
  });
});
