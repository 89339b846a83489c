import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FIELD_SOURCE_KEYS } from '../domain/field-sources.ts';
import type { NormalizedJob, SourcePosting } from '../domain/posting.ts';
import { CATEGORY_CONFIDENCE_THRESHOLD } from '../domain/vocabulary.ts';
import { enrichPosting, type ProviderProfile } from './enrich.ts';
import { loadFxRates } from './fx.ts';

const fx = loadFxRates();
const ashby: ProviderProfile = { id: 'ashby', sourceType: 'ats', providerType: 'employer_ats' };
const usajobs: ProviderProfile = { id: 'usajobs', sourceType: 'public_agency', providerType: 'government' };

/** ramp.json "Customer Experience Agent", as the Ashby connector reads it (description shortened). */
const rampAgent: SourcePosting = {
  sourcePostingId: 'd64609dd-c391-45a2-bfdb-c1bb34e8f93c',
  title: 'Customer Experience Agent',
  company: { name: 'Ramp' },
  location: 'New York, NY (HQ)',
  locations: [
    { country: 'USA', region: 'NY', city: 'New York City' },
    { text: 'Miami, FL', country: 'USA', region: 'Florida', city: 'Miami' },
    { text: 'San Francisco, CA', country: 'USA', region: 'California ', city: 'San Fransisco' },
    { text: 'Remote (US)', country: 'United States' },
    { text: 'Denver, CO', country: 'United States', region: 'Colorado', city: 'Denver' },
  ],
  remoteFlag: 'remote',
  employmentType: 'FullTime',
  postedAt: '2023-12-22T18:44:43.359+00:00',
  descriptionHtml: '<h1><strong>About Ramp</strong></h1><p style="min-height:1.5em">At Ramp, we’re rethinking how modern finance teams function in the age of AI.</p>',
  salary: { min: 48000, max: 70000, currency: 'USD', period: 'annual' },
  applyUrl: 'https://jobs.ashbyhq.com/ramp/d64609dd-c391-45a2-bfdb-c1bb34e8f93c/application',
  postingUrl: 'https://jobs.ashbyhq.com/ramp/d64609dd-c391-45a2-bfdb-c1bb34e8f93c',
  hints: { department: 'Customer Experience', team: 'Customer Experience' },
};

/** bjakcareer.json "Talent Acquisition Executive (Fresh Grad, RM3500- RM6000)": isRemote false, MYR monthly. */
const bjakRecruiter: SourcePosting = {
  sourcePostingId: 'b1212e14-e0f6-4151-9cc9-0d286a164d41',
  title: 'Talent Acquisition Executive (Fresh Grad, RM3500- RM6000)',
  company: { name: 'BJAK' },
  location: 'Malaysia',
  locations: [{ country: 'Malaysia', region: 'Selangor', city: 'Bandar Utama, Petaling Jaya' }],
  remoteFlag: 'on_site',
  employmentType: 'FullTime',
  postedAt: '2025-10-15T06:08:46.281+00:00',
  descriptionHtml: '<p style="min-height:1.5em"><strong>Build the Team That Builds the Future</strong></p>',
  salary: { min: 3500, max: 6000, currency: 'MYR', period: 'monthly' },
  applyUrl: 'https://jobs.ashbyhq.com/bjakcareer/b1212e14-e0f6-4151-9cc9-0d286a164d41/application',
  hints: { department: 'Human Resources', team: 'Human Resources' },
};

/** Synergy%20Pet%20Group.json "Customer Care Specialist": USD 24–27 per hour, "United States | Remote". */
const synergyCare: SourcePosting = {
  sourcePostingId: '5215ce77-2c51-4dab-91cd-d770ec93d60c',
  title: 'Customer Care Specialist',
  company: { name: 'Synergy Pet Group' },
  location: 'United States | Remote',
  locations: [{ country: 'United States' }],
  remoteFlag: 'remote',
  employmentType: 'FullTime',
  postedAt: '2025-10-22T19:34:19.828+00:00',
  salary: { min: 24, max: 27, currency: 'USD', period: 'hourly' },
  applyUrl: 'https://jobs.ashbyhq.com/Synergy%20Pet%20Group/5215ce77-2c51-4dab-91cd-d770ec93d60c/application',
};

describe('enrichPosting: real Ashby postings', () => {
  it('enriches ramp.json "Customer Experience Agent" field by field', () => {
    expect(enrichPosting(rampAgent, ashby, fx)).toEqual({
      sourcePostingId: 'd64609dd-c391-45a2-bfdb-c1bb34e8f93c',
      title: 'Customer Experience Agent',
      companyName: 'Ramp',
      location: 'New York, NY (HQ)',
      country: 'US',
      remote: 'remote',
      remoteInferred: false,
      employmentType: 'Full-time',
      category: 'Customer Support',
      categoryConfidence: 0.96,
      postedAt: '2023-12-22T18:44:43.359Z',
      descriptionHtml: '<h3><strong>About Ramp</strong></h3><p>At Ramp, we’re rethinking how modern finance teams function in the age of AI.</p>',
      descriptionText: 'About Ramp\n\nAt Ramp, we’re rethinking how modern finance teams function in the age of AI.',
      hasDescription: true,
      salary: { min: 48000, max: 70000, currency: 'USD', period: 'annual', source: 'structured', minAnnualEur: Math.round(48000 * fx.eurPerUnit.USD * 100) / 100, maxAnnualEur: Math.round(70000 * fx.eurPerUnit.USD * 100) / 100 },
      applyUrl: 'https://jobs.ashbyhq.com/ramp/d64609dd-c391-45a2-bfdb-c1bb34e8f93c/application',
      postingUrl: 'https://jobs.ashbyhq.com/ramp/d64609dd-c391-45a2-bfdb-c1bb34e8f93c',
      sourceType: 'ats',
      providerType: 'employer_ats',
      fieldSources: {
        remote: 'published',
        employment_type: 'published',
        category: 'inferred',
        seniority: 'absent',
        salary: 'published',
        location: 'published',
        posted_at: 'published',
        description: 'published',
        source_type: 'inferred',
      },
    } satisfies NormalizedJob);
  });

  it('enriches bjakcareer.json: Malaysia, monthly MYR converted, entry level, HR', () => {
    const job = enrichPosting(bjakRecruiter, ashby, fx);
    expect(job).toMatchObject({
      country: 'MY',
      city: 'Petaling Jaya',
      remote: 'on_site',
      remoteInferred: false,
      seniority: 'Entry',
      category: 'HR & Recruiting',
      salary: { min: 3500, max: 6000, currency: 'MYR', period: 'monthly', source: 'structured', minAnnualEur: Math.round(3500 * 12 * fx.eurPerUnit.MYR * 100) / 100, maxAnnualEur: Math.round(6000 * 12 * fx.eurPerUnit.MYR * 100) / 100 },
    });
    expect(job.salary?.minAnnualEur).toBe(9043.15);
    expect(job.fieldSources.seniority).toBe('inferred');
  });

  it('enriches Synergy%20Pet%20Group.json: hourly USD converted with 2080 hours, no description', () => {
    const job = enrichPosting(synergyCare, ashby, fx);
    expect(job.salary?.minAnnualEur).toBe(Math.round(24 * 2080 * fx.eurPerUnit.USD * 100) / 100);
    expect(job.country).toBe('US');
    expect(job.category).toBe('Customer Support');
    expect(job.hasDescription).toBe(false);
    expect(job.descriptionHtml).toBeUndefined();
    expect(job.fieldSources.description).toBe('absent');
  });
});

describe('enrichPosting: provenance', () => {
  const bare: SourcePosting = { sourcePostingId: 'x1', title: 'Engineer', company: { name: 'Acme' }, locations: [] };

  it('marks everything absent that the source did not give and the title does not say', () => {
    const job = enrichPosting({ ...bare, title: 'Future Role at Catio' }, ashby, fx);
    expect(job.fieldSources).toEqual({
      remote: 'absent',
      employment_type: 'absent',
      category: 'absent',
      seniority: 'absent',
      salary: 'absent',
      location: 'absent',
      posted_at: 'absent',
      description: 'absent',
      source_type: 'inferred',
    });
    expect(job.categoryConfidence).toBeNull();
    expect(job.remoteInferred).toBe(false);
    expect(job.hasDescription).toBe(false);
  });

  it('marks a remote mode derived from the location text as inferred', () => {
    // 1password.json "Developer, Backend": isRemote null
    const job = enrichPosting({ ...bare, title: 'Developer, Backend', location: 'Remote (United States | Canada)' }, ashby, fx);
    expect(job).toMatchObject({ remote: 'remote', remoteInferred: true, location: 'Remote (United States | Canada)' });
    expect(job.country).toBeUndefined();
    expect(job.fieldSources.remote).toBe('inferred');
    expect(job.fieldSources.location).toBe('published');
  });

  it('marks hybrid as inferred when an Ashby boolean flag is refined by the location (Abridge.json)', () => {
    const job = enrichPosting({ ...bare, title: 'Senior Operations Manager', location: 'San Francisco-Hybrid', remoteFlag: 'remote' }, ashby, fx);
    expect(job).toMatchObject({ remote: 'hybrid', remoteInferred: true, city: 'San Francisco', state: 'CA' });
    expect(job.fieldSources.remote).toBe('inferred');
  });

  it('publishes an employment type only when the source value maps', () => {
    expect(enrichPosting({ ...bare, employmentType: 'Internships' }, usajobs, fx)).toMatchObject({ employmentType: 'Internship', fieldSources: { employment_type: 'published' } });
    const permanent = enrichPosting({ ...bare, employmentType: 'Permanent' }, usajobs, fx);
    expect(permanent.employmentType).toBeUndefined();
    expect(permanent.fieldSources.employment_type).toBe('absent');
  });

  it('uses the plain-text description when the source has no HTML', () => {
    const job = enrichPosting({ ...bare, descriptionText: 'Line one\n\nLine <two>' }, ashby, fx);
    expect(job).toMatchObject({ hasDescription: true, descriptionHtml: '<p>Line one</p><p>Line &lt;two&gt;</p>', descriptionText: 'Line one\n\nLine <two>' });
    expect(job.fieldSources.description).toBe('published');
  });

  it('takes source_type and provider_type from the provider; source_type is always inferred', () => {
    const job = enrichPosting(bare, usajobs, fx);
    expect(job).toMatchObject({ sourceType: 'public_agency', providerType: 'government', fieldSources: { source_type: 'inferred' } });
  });

  it('publishes a structured location with no text (NAV feed: NORGE / OSLO)', () => {
    const job = enrichPosting({ ...bare, title: 'Erfaren frontendutvikler', locations: [{ country: 'NORGE', city: 'OSLO' }] }, { id: 'nav', sourceType: 'public_agency', providerType: 'government' }, fx);
    expect(job).toMatchObject({ country: 'NO', city: 'Oslo', seniority: 'Senior', category: 'Engineering' });
    expect(job.location).toBeUndefined();
    expect(job.fieldSources.location).toBe('published');
  });
});

describe('enrichPosting: normalisation', () => {
  const bare: SourcePosting = { sourcePostingId: 'x2', title: 'x', company: { name: 'Acme' }, locations: [] };

  it('trims the title and collapses its whitespace (ramp.json "Software Engineer Internship | Android  ")', () => {
    expect(enrichPosting({ ...bare, title: '  Software Engineer Internship | Android  ' }, ashby, fx).title).toBe('Software Engineer Internship | Android');
    expect(enrichPosting({ ...bare, title: 'Compounding Lab Manager ,  Days' }, ashby, fx).title).toBe('Compounding Lab Manager , Days');
  });

  it('normalizes timestamps to RFC 3339 UTC and drops unparseable ones', () => {
    const job = enrichPosting({ ...bare, postedAt: '2025-10-10T21:10:27.371+02:00', closesAt: '2024-02-14' }, usajobs, fx);
    expect(job.postedAt).toBe('2025-10-10T19:10:27.371Z');
    expect(job.upstreamClosesAt).toBe('2024-02-14T00:00:00.000Z');
    expect(enrichPosting({ ...bare, postedAt: '+010000-01-01T00:00:00Z' }, usajobs, fx).postedAt).toBeUndefined();
    const bad = enrichPosting({ ...bare, postedAt: 'yesterday', closesAt: '' }, usajobs, fx);
    expect(bad.postedAt).toBeUndefined();
    expect(bad.upstreamClosesAt).toBeUndefined();
    expect(bad.fieldSources.posted_at).toBe('absent');
  });

  it('keeps only absolute http(s) URLs', () => {
    const job = enrichPosting(
      { ...bare, applyUrl: 'javascript:alert(1)', postingUrl: '/jobs/1', company: { name: 'Acme', logoUrl: 'ftp://x/logo.png', domain: '  ' } },
      ashby,
      fx,
    );
    expect(job.applyUrl).toBeUndefined();
    expect(job.postingUrl).toBeUndefined();
    expect(job.companyLogo).toBeUndefined();
    expect(job.companyDomain).toBeUndefined();
    expect(enrichPosting({ ...bare, applyUrl: 'https://user:pw@evil.example/apply' }, ashby, fx).applyUrl).toBeUndefined();
    expect(enrichPosting({ ...bare, applyUrl: ' https://www.usajobs.gov/job/773775000 ' }, usajobs, fx).applyUrl).toBe('https://www.usajobs.gov/job/773775000');
  });

  it('never stores an empty optional string', () => {
    const job = enrichPosting({ ...bare, location: '   ', employmentType: '', descriptionHtml: '<p> </p>', descriptionText: '', company: { name: 'Acme', domain: '', logoUrl: '' } }, ashby, fx);
    for (const [key, value] of Object.entries(job)) {
      if (typeof value === 'string' && key !== 'title') expect(value, key).not.toBe('');
    }
    expect(job.location).toBeUndefined();
    expect(job.fieldSources.location).toBe('absent');
  });
});

describe('enrichPosting: invariants on arbitrary input', () => {
  const text = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 40 }), fc.constantFrom('Remote', 'Hybrid - London', 'San Francisco, CA', '  ', '', 'Berlin, Germany', 'On-site'));
  const posting: fc.Arbitrary<SourcePosting> = fc.record({
    sourcePostingId: fc.uuid(),
    title: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('Senior Software Engineer', 'Store Manager - Edmonton', '  Remote Account Executive ', 'Praktikant (m/w/d)')),
    company: fc.record({ name: fc.string({ maxLength: 20 }), domain: text, logoUrl: text }),
    location: text,
    locations: fc.array(fc.record({ text, country: text, region: text, city: text }), { maxLength: 3 }),
    remoteFlag: fc.constantFrom(undefined, 'remote', 'hybrid', 'on_site' as const),
    employmentType: text,
    postedAt: fc.oneof(text, fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
    descriptionHtml: fc.oneof(text, fc.constantFrom('<p>Hi</p>', '<p style="x"></p>', '<script>x</script>')),
    descriptionText: text,
    salary: fc.option(fc.record({ min: fc.option(fc.double(), { nil: undefined }), max: fc.option(fc.double(), { nil: undefined }), currency: text, period: fc.constantFrom(null, 'annual', 'monthly', 'hourly' as const) }), { nil: undefined }),
    applyUrl: text,
    postingUrl: text,
    closesAt: text,
    hints: fc.option(fc.record({ department: text, team: text }), { nil: undefined }),
  });

  it('holds for every posting', () => {
    fc.assert(
      fc.property(posting, (p) => {
        const job = enrichPosting(p, ashby, fx);
        expect(Object.keys(job.fieldSources).sort()).toEqual([...FIELD_SOURCE_KEYS].sort());
        expect(job.categoryConfidence === null).toBe(job.category === undefined);
        if (job.categoryConfidence !== null) expect(job.categoryConfidence).toBeGreaterThanOrEqual(CATEGORY_CONFIDENCE_THRESHOLD);
        if (job.remoteInferred) expect(job.remote).toBeDefined();
        expect(job.remoteInferred).toBe(job.fieldSources.remote === 'inferred');
        expect(job.hasDescription).toBe(job.descriptionHtml !== undefined && job.descriptionText !== undefined);
        expect(job.title).toBe(job.title.replace(/\s+/g, ' ').trim());
        for (const [key, value] of Object.entries(job)) {
          if (typeof value === 'string' && key !== 'title' && key !== 'companyName' && key !== 'sourcePostingId') expect(value, key).not.toBe('');
        }
        for (const ts of [job.postedAt, job.upstreamClosesAt]) if (ts !== undefined) expect(ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        for (const url of [job.applyUrl, job.postingUrl, job.companyLogo]) if (url !== undefined) expect(url).toMatch(/^https?:\/\//);
        if (job.state !== undefined) expect(job.country).toBe('US');
        if (job.salary) expect(job.fieldSources.salary).toBe('published');
        else expect(job.fieldSources.salary).toBe('absent');
      }),
      { numRuns: 300 },
    );
  });
});
