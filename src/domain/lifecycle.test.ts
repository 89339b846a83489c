import { describe, expect, it } from 'vitest';
import { FIELD_SOURCE_KEYS, type FieldSources } from './field-sources.ts';
import {
  contentHash,
  decideAbsence,
  decideTransition,
  DEFAULT_ABSENCE_POLICY,
  planCrawl,
  planCopyWithholding,
  planOptoutWithholding,
  planUnchangedBoard,
  decideRepostCount,
  firstSeenLagHours,
  reopenedRepostCount,
  repostKey,
  type BoardRow,
  type LedgerPosting,
  type LedgerState,
  type Sighting,
} from './lifecycle.ts';
import type { NormalizedJob } from './posting.ts';

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

const fieldSources = Object.fromEntries(FIELD_SOURCE_KEYS.map((k) => [k, 'absent'])) as FieldSources;

function job(sourcePostingId: string, extra: Partial<NormalizedJob> = {}): NormalizedJob {
  return {
    sourcePostingId,
    title: 'Backend Engineer',
    companyName: 'Acme',
    remoteInferred: false,
    categoryConfidence: null,
    hasDescription: false,
    sourceType: 'ats',
    providerType: 'employer_ats',
    fieldSources,
    applyUrl: `https://jobs.acme.example/${sourcePostingId}`,
    ...extra,
  };
}

const posting = (id: string, extra: Partial<NormalizedJob> = {}, verdict: LedgerPosting['verdict'] = { verdict: 'live' }): LedgerPosting => ({ job: job(id, extra), verdict });

/** A stored row holding `p` as it is now (same content hash), served unless told otherwise. */
function rowOf(id: string, p: LedgerPosting, extra: Partial<BoardRow> = {}): BoardRow {
  return {
    id,
    sourcePostingId: p.job.sourcePostingId,
    status: 'live',
    closedReason: null,
    withheldKind: null,
    served: true,
    contentHash: contentHash(p.job),
    missedCrawls: 0,
    lastVerifiedAt: new Date('2026-11-22T06:00:00Z'),
    country: 'DE',
    repostCount: 0,
    ...extra,
  };
}

function ids(...names: string[]): () => string {
  const queue = [...names];
  return () => queue.shift() ?? 'no-more-ids';
}

describe('content hash', () => {
  it('ignores key order and absent fields, and changes with any served field', () => {
    const a = job('1', { country: 'DE', city: 'Berlin' });
    const reordered = { city: 'Berlin', ...job('1'), country: 'DE', seniority: undefined } as NormalizedJob;
    expect(contentHash(reordered)).toBe(contentHash(a));
    expect(contentHash(job('1', { country: 'DE', city: 'Munich' }))).not.toBe(contentHash(a));
    expect(contentHash(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('planning a crawl of a board', () => {
  it('inserts new postings with fresh ids and slugs, closed at once when their close date has passed', () => {
    const fresh = posting('new');
    const expired = posting('old', { upstreamClosesAt: '2026-01-31T00:00:00Z' });
    const plan = planCrawl({ postings: [fresh, expired], rows: [], now, newId: ids('11111111-aaaa', '22222222-bbbb') });
    expect(plan.liveInserts).toEqual([{ id: '11111111-aaaa', slug: 'backend-engineer-11111111', posting: fresh, hash: contentHash(fresh.job), closedUpstream: false, upstreamExpiredAt: null, repostCount: 0 }]);
    expect(plan.closedInserts).toEqual([
      { id: '22222222-bbbb', slug: 'backend-engineer-22222222', posting: expired, hash: contentHash(expired.job), closedUpstream: true, upstreamExpiredAt: new Date('2026-01-31T00:00:00Z'), repostCount: 0 },
    ]);
    expect(plan.events).toEqual([{ jobId: '11111111-aaaa', change: 'created' }]);
    expect(plan.counts).toMatchObject({ postings: 2, created: 2, closed: 0, events: 1 });
  });

  it('only re-verifies unchanged rows, rewrites changed ones with the old country on the event, and withdraws a served row the gate now removes', () => {
    const same = posting('same');
    const changed = posting('changed');
    const removed = posting('removed', {}, { verdict: 'quality_removed', ruleId: 'apply_url.not_employer' });
    const rows = [rowOf('r-same', same), rowOf('r-changed', changed, { contentHash: 'older', country: 'FR' }), rowOf('r-removed', posting('removed'))];
    const plan = planCrawl({ postings: [same, changed, removed], rows, now, newId: ids() });
    expect(plan.verified).toEqual(['r-same']);
    expect(plan.rewrites.map((r) => [r.id, r.status])).toEqual([
      ['r-changed', 'live'],
      ['r-removed', 'live'],
    ]);
    expect(plan.events).toEqual([
      { jobId: 'r-changed', change: 'updated', previousCountry: 'FR' },
      { jobId: 'r-removed', change: 'withdrawn', previousCountry: 'DE' },
    ]);
    expect(plan.counts).toMatchObject({ unchanged: 1, updated: 2, withdrawn: 1, events: 2 });
    expect(plan.liveInserts).toEqual([]);
  });

  it('closes a live row whose close date passed at that date, and refreshes a closed one silently', () => {
    const closing = posting('closing', { upstreamClosesAt: '2026-11-01T00:00:00Z' });
    const stillClosed = posting('still', { upstreamClosesAt: '2026-10-01T00:00:00Z', title: 'Backend Engineer II' });
    const rows = [
      rowOf('r-closing', posting('closing')),
      rowOf('r-still', posting('still', { upstreamClosesAt: '2026-10-01T00:00:00Z' }), { status: 'closed', closedReason: 'expired_upstream', served: false }),
    ];
    const plan = planCrawl({ postings: [closing, stillClosed], rows, now, newId: ids() });
    expect(plan.closes).toEqual([
      { id: 'r-closing', posting: closing, hash: contentHash(closing.job), status: 'closed', closedReason: 'expired_upstream', upstreamExpiredAt: new Date('2026-11-01T00:00:00Z'), repostCount: 0 },
    ]);
    expect(plan.rewrites).toEqual([{ id: 'r-still', posting: stillClosed, hash: contentHash(stillClosed.job), status: 'closed', repostCount: 0 }]);
    expect(plan.events).toEqual([{ jobId: 'r-closing', change: 'delisted', previousCountry: 'DE' }]);
    expect(plan.counts).toMatchObject({ closed: 1, updated: 1, events: 1 });
  });

  it('counts live rows the complete listing left out, closing those gone long enough as not_seen after the postings events', () => {
    const listed = posting('listed', { title: 'Changed title' });
    const rows = [
      rowOf('r-listed', posting('listed')),
      rowOf('r-gone', posting('gone'), { missedCrawls: 2, lastVerifiedAt: new Date('2026-11-20T00:00:00Z') }),
      rowOf('r-recent', posting('recent'), { missedCrawls: 5, lastVerifiedAt: new Date('2026-11-22T11:00:00Z') }),
      rowOf('r-gone-unserved', posting('gone2'), { missedCrawls: 4, lastVerifiedAt: new Date('2026-11-01T00:00:00Z'), served: false, withheldKind: 'quality_gated' }),
    ];
    const plan = planCrawl({ postings: [listed], rows, now, absence: DEFAULT_ABSENCE_POLICY, newId: ids() });
    expect(plan.notSeen).toEqual(['r-gone', 'r-gone-unserved']);
    expect(plan.missed).toEqual(['r-recent']);
    expect(plan.events).toEqual([
      { jobId: 'r-listed', change: 'updated', previousCountry: 'DE' },
      { jobId: 'r-gone', change: 'delisted' },
    ]);
    expect(plan.counts).toMatchObject({ missed: 3, notSeen: 2, closed: 2, updated: 1, events: 2 });
  });

  it('infers nothing from absence without an absence policy (a partial update)', () => {
    const rows = [rowOf('r-gone', posting('gone'), { missedCrawls: 9, lastVerifiedAt: new Date('2026-01-01T00:00:00Z') })];
    const plan = planCrawl({ postings: [posting('other')], rows, now, newId: ids('33333333') });
    expect(plan.notSeen).toEqual([]);
    expect(plan.missed).toEqual([]);
    expect(plan.counts.missed).toBe(0);
  });
});

describe('planning a not-modified answer', () => {
  it('re-verifies the rows the last full crawl listed and applies the absence rule to the live rest', () => {
    const at = (iso: string) => new Date(iso);
    const plan = planUnchangedBoard(
      [
        { id: 'listed', status: 'live', served: true, missedCrawls: 0, lastVerifiedAt: at('2026-11-22T06:00:00Z') },
        { id: 'listed-closed', status: 'closed', served: false, missedCrawls: 0, lastVerifiedAt: at('2026-11-22T06:00:00Z') },
        { id: 'missing', status: 'live', served: true, missedCrawls: 1, lastVerifiedAt: at('2026-11-20T00:00:00Z') },
        { id: 'gone', status: 'live', served: true, missedCrawls: 2, lastVerifiedAt: at('2026-11-20T00:00:00Z') },
        { id: 'gone-withheld', status: 'live', served: false, missedCrawls: 3, lastVerifiedAt: at('2026-11-20T00:00:00Z') },
      ],
      now,
      DEFAULT_ABSENCE_POLICY,
    );
    expect(plan).toEqual({
      reverified: ['listed', 'listed-closed'],
      missed: ['missing'],
      notSeen: ['gone', 'gone-withheld'],
      events: [{ jobId: 'gone', change: 'delisted' }],
    });
  });
});

describe('planning a verified opt-out', () => {
  it('withholds every row of the employer, withdraws the served ones, and keeps hidden and never-redistributed rows as they are', () => {
    const plan = planOptoutWithholding([
      { id: 'served', served: true, verdict: 'live', ruleId: null },
      { id: 'gated', served: false, verdict: 'quality_gated', ruleId: 'apply_url.missing' },
      { id: 'closed', served: false, verdict: 'live', ruleId: null },
      { id: 'hidden', served: false, verdict: 'optout_hidden', ruleId: 'employer.opted_out' },
      { id: 'board', served: false, verdict: 'quality_removed', ruleId: 'source.not_redistributable' },
    ]);
    expect(plan).toEqual({
      withhold: ['served', 'gated', 'closed'],
      verdict: { verdict: 'optout_hidden', ruleId: 'employer.opted_out' },
      events: [{ jobId: 'served', change: 'withdrawn' }],
    });
  });
});

describe('withholding the copies of a vacancy another provider supersedes', () => {
  it('removes served and gated copies with withdrawn events for the served, and leaves removed or hidden rows their verdict', () => {
    const plan = planCopyWithholding([
      { id: 'served', served: true, verdict: 'live', ruleId: null },
      { id: 'gated', served: false, verdict: 'quality_gated', ruleId: 'apply_url.missing' },
      { id: 'staffing', served: false, verdict: 'live', ruleId: null },
      { id: 'hidden', served: false, verdict: 'optout_hidden', ruleId: 'employer.opted_out' },
      { id: 'already', served: false, verdict: 'quality_removed', ruleId: 'source.superseded' },
    ]);
    expect(plan).toEqual({
      withhold: ['served', 'gated', 'staffing'],
      verdict: { verdict: 'quality_removed', ruleId: 'source.superseded' },
      events: [{ jobId: 'served', change: 'withdrawn' }],
    });
  });
});

describe('reality signals (issue 15): repost_count and the posted_at lag', () => {
  const scope = { listedIds: new Set<string>(), completeCrawlOf: 'target-1' };

  it('keys a vacancy by title and location text, ignoring case and white space', () => {
    expect(repostKey('  Backend   Engineer ', 'Berlin,  Germany')).toBe(repostKey('backend engineer', 'berlin, germany'));
    expect(repostKey('Backend Engineer', 'Berlin')).not.toBe(repostKey('Backend Engineer', 'Munich'));
    expect(repostKey('Backend Engineer', null)).toBe(repostKey('Backend Engineer', ''));
    expect(repostKey('A', 'B C')).not.toBe(repostKey('A B', 'C'));
  });

  it('counts 0 without predecessors, and one more than the highest count among those that left their source', () => {
    expect(decideRepostCount([], scope)).toBe(0);
    const closed = { id: 'p1', status: 'closed' as const, targetId: 'other', repostCount: 0 };
    const closedTwice = { id: 'p2', status: 'closed' as const, targetId: 'other', repostCount: 1 };
    expect(decideRepostCount([closed], scope)).toBe(1);
    expect(decideRepostCount([closed, closedTwice], scope)).toBe(2);
  });

  it('counts a live row of the same board that this complete crawl no longer lists, but not one still listed or on another board', () => {
    const unlisted = { id: 'p1', status: 'live' as const, targetId: 'target-1', repostCount: 0 };
    const otherBoard = { id: 'p2', status: 'live' as const, targetId: 'target-2', repostCount: 3 };
    expect(decideRepostCount([unlisted, otherBoard], scope)).toBe(1);
    expect(decideRepostCount([unlisted], { ...scope, listedIds: new Set(['p1']) })).toBe(0);
    expect(decideRepostCount([unlisted], { ...scope, completeCrawlOf: null })).toBe(0);
  });

  it('plans the counts: a new posting after a closed one, a reopened row one more, a concurrent opening none', () => {
    const reposted = posting('again');
    const reopening = posting('back');
    const concurrent = posting('second-opening');
    const rows = [rowOf('r-back', reopening, { status: 'closed', closedReason: 'not_seen', served: false, repostCount: 2 }), rowOf('r-first', posting('first-opening'))];
    const predecessors = new Map([
      ['again', [{ id: 'r-old', status: 'closed' as const, targetId: 't', repostCount: 0 }]],
      ['second-opening', [{ id: 'r-first', status: 'live' as const, targetId: 't', repostCount: 0 }]],
    ]);
    const plan = planCrawl({ postings: [reposted, reopening, concurrent, posting('first-opening')], rows, now, absence: DEFAULT_ABSENCE_POLICY, newId: ids('n1', 'n2'), targetId: 't', predecessors });
    expect(plan.liveInserts.map((i) => [i.posting.job.sourcePostingId, i.repostCount])).toEqual([
      ['again', 1],
      ['second-opening', 0],
    ]);
    expect(plan.rewrites.map((r) => [r.id, r.status, r.repostCount])).toEqual([['r-back', 'live', 3]]);
    expect(reopenedRepostCount(0)).toBe(1);
  });

  it('measures the lag of first_seen_at behind posted_at in whole hours, never without posted_at', () => {
    const firstSeen = new Date('2026-11-22T12:00:00Z');
    expect(firstSeenLagHours(new Date('2026-11-20T12:00:00Z'), firstSeen)).toBe(48);
    expect(firstSeenLagHours(new Date('2026-11-22T11:40:00Z'), firstSeen)).toBe(0);
    expect(Object.is(firstSeenLagHours(new Date('2026-11-22T12:10:00Z'), firstSeen), 0)).toBe(true);
    expect(firstSeenLagHours(new Date('2026-11-23T12:00:00Z'), firstSeen)).toBe(-24);
    expect(firstSeenLagHours(null, firstSeen)).toBeUndefined();
    expect(firstSeenLagHours(undefined, firstSeen)).toBeUndefined();
  });
});
