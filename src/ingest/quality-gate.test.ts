import { describe, expect, it } from 'vitest';
import type { NormalizedJob } from '../domain/posting.ts';
import { FUTURE_TOLERANCE_MS, judgePosting, type GateContext } from './quality-gate.ts';

const NOW = new Date('2025-10-28T12:00:00Z');

function job(overrides: Partial<NormalizedJob> = {}): NormalizedJob {
  return {
    sourcePostingId: '1',
    title: 'Backend Engineer',
    companyName: 'Ramp',
    remoteInferred: false,
    categoryConfidence: null,
    hasDescription: false,
    sourceType: 'ats',
    providerType: 'employer_ats',
    fieldSources: { remote: 'absent', employment_type: 'absent', category: 'absent', seniority: 'absent', salary: 'absent', location: 'absent', posted_at: 'absent', description: 'absent', source_type: 'inferred' },
    // A real Ashby apply link (fixtures/ashby/ramp.json.gz).
    applyUrl: 'https://jobs.ashbyhq.com/ramp/6f1e3c7b-8a43-4b46-9d0b-6b7d4f1a2c3d/application',
    ...overrides,
  };
}

const ctx = (overrides: Partial<GateContext> = {}): GateContext => ({ providerId: 'ashby', redistributable: true, discoveryOnly: false, board: 'ramp', companyDomain: 'ramp.com', now: NOW, ...overrides });

describe('judgePosting: one stable rule id per verdict', () => {
  it('serves an employer-direct posting', () => {
    expect(judgePosting(job(), ctx())).toEqual({ verdict: 'live' });
  });

  it('removes every row of a discovery-only or not redistributable source (the job-board feeds)', () => {
    expect(judgePosting(job(), ctx({ providerId: 'remotive', redistributable: false, discoveryOnly: true }))).toEqual({ verdict: 'quality_removed', ruleId: 'source.not_redistributable' });
  });

  it('hides the rows of an employer with a verified opt-out, whatever its links say', () => {
    expect(judgePosting(job({ applyUrl: undefined }), ctx({ optedOut: true }))).toEqual({ verdict: 'optout_hidden', ruleId: 'employer.opted_out' });
    // A removed source stays removed: removal is the stronger verdict.
    expect(judgePosting(job(), ctx({ optedOut: true, redistributable: false, discoveryOnly: true })).verdict).toBe('quality_removed');
  });

  it('gates a row without an apply link (reversible doubt)', () => {
    expect(judgePosting(job({ applyUrl: undefined }), ctx())).toEqual({ verdict: 'quality_gated', ruleId: 'apply_url.missing' });
  });

  it('removes a link to a job board, to another board on the ATS, or off the employer', () => {
    expect(judgePosting(job({ applyUrl: 'https://www.linkedin.com/jobs/view/123' }), ctx())).toEqual({ verdict: 'quality_removed', ruleId: 'apply_url.job_board', matchedHost: 'linkedin.com' });
    expect(judgePosting(job({ applyUrl: 'https://jobs.ashbyhq.com/other/1' }), ctx())).toEqual({ verdict: 'quality_removed', ruleId: 'apply_url.other_board', matchedHost: 'jobs.ashbyhq.com' });
    expect(judgePosting(job({ applyUrl: 'https://apply.example.org/1' }), ctx())).toEqual({ verdict: 'quality_removed', ruleId: 'apply_url.not_employer', matchedHost: 'apply.example.org' });
    expect(judgePosting(job({ applyUrl: 'https://careers.ramp.com/1' }), ctx())).toEqual({ verdict: 'live' });
  });

  it('gates a posted_at in the future beyond the clock-skew tolerance', () => {
    const future = new Date(NOW.getTime() + FUTURE_TOLERANCE_MS + 1000).toISOString();
    expect(judgePosting(job({ postedAt: future }), ctx())).toEqual({ verdict: 'quality_gated', ruleId: 'posted_at.future' });
    expect(judgePosting(job({ postedAt: new Date(NOW.getTime() + 60_000).toISOString() }), ctx())).toEqual({ verdict: 'live' });
  });
});

describe('judgePosting: ATS hosts that name the board in the host (issue 18)', () => {
  const removed = { verdict: 'quality_removed', ruleId: 'apply_url.other_board' };

  it('Recruitee and Personio: the board is the subdomain', () => {
    const recruitee = ctx({ providerId: 'recruitee', board: 'aikidosecurity', companyDomain: 'aikido.dev' });
    expect(judgePosting(job({ applyUrl: 'https://aikidosecurity.recruitee.com/o/office-manager-chicago/c/new' }), recruitee)).toEqual({ verdict: 'live' });
    expect(judgePosting(job({ applyUrl: 'https://someoneelse.recruitee.com/o/office-manager-chicago/c/new' }), recruitee)).toMatchObject(removed);
    const personio = ctx({ providerId: 'personio', board: 'harbourline', companyDomain: undefined });
    expect(judgePosting(job({ applyUrl: 'https://harbourline.jobs.personio.de/job/1873401' }), personio)).toEqual({ verdict: 'live' });
    expect(judgePosting(job({ applyUrl: 'https://other.jobs.personio.de/job/1873401' }), personio)).toMatchObject(removed);
  });

  it('Workday: the board begins with the tenant host', () => {
    const workday = ctx({ providerId: 'workday', board: 'gdit.wd5.myworkdayjobs.com/gdit/External_Career_Site', companyDomain: 'gdit.com' });
    expect(judgePosting(job({ applyUrl: 'https://gdit.wd5.myworkdayjobs.com/External_Career_Site/job/USA-DC-Washington/Data-Engineer_RQ216675' }), workday)).toEqual({ verdict: 'live' });
    expect(judgePosting(job({ applyUrl: 'https://acme.wd1.myworkdayjobs.com/Careers/job/X' }), workday)).toMatchObject(removed);
  });

  it('Workable: the short link names no account and counts as the ATS itself', () => {
    const workable = ctx({ providerId: 'workable', board: 'vasion', companyDomain: 'vasion.com' });
    expect(judgePosting(job({ applyUrl: 'https://apply.workable.com/j/15F16B8D99/apply' }), workable)).toEqual({ verdict: 'live' });
    expect(judgePosting(job({ applyUrl: 'https://jobs.example.net/vasion/1' }), workable)).toMatchObject({ verdict: 'quality_removed', ruleId: 'apply_url.not_employer' });
  });
});
