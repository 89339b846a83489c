/**
 * The three job-board feeds, read from the project's hand-written fixtures (fixtures/remotive,
 * himalayas, arbeitnow; see their READMEs): their rows are never served, but the ledger keeps them
 * withheld, so the mapping must still be truthful.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../test/helpers/fixtures.ts';
import { mapArbeitnowJob } from './arbeitnow.ts';
import { mapHimalayasJob } from './himalayas.ts';
import { mapRemotiveJob } from './remotive.ts';

const read = (file: string): Record<string, unknown[]> => JSON.parse(fs.readFileSync(path.join(FIXTURES, file), 'utf8')) as Record<string, unknown[]>;

describe('job-board feed connectors', () => {
  it('maps a Remotive job', () => {
    const [job] = read('remotive/remote-jobs.json')['jobs']!;
    expect(mapRemotiveJob(job)).toMatchObject({
      sourcePostingId: '900001',
      title: 'Backend Engineer (Go)',
      company: { name: 'Quillstone Analytics', logoUrl: 'https://remotive.com/job/900001/logo' },
      location: 'USA',
      locations: [{ text: 'USA' }],
      remoteFlag: 'remote',
      employmentType: 'full_time',
      applyUrl: 'https://remotive.com/remote-jobs/software-dev/backend-engineer-900001',
      hints: { department: 'Software Development' },
    });
    // "2025-10-20T09:15:00" carries no offset: reading it would be a guess.
    expect(mapRemotiveJob(job)?.postedAt).toBeUndefined();
  });

  it('maps a Himalayas job with its structured salary and dates', () => {
    const [designer, analyst] = read('himalayas/jobs.json')['jobs']!;
    expect(mapHimalayasJob(designer)).toMatchObject({
      sourcePostingId: 'https://himalayas.app/companies/tidewater-ledger/jobs/product-designer',
      company: { name: 'Tidewater Ledger' },
      location: 'Germany',
      locations: [{ country: 'Germany' }],
      salary: { min: 90000, max: 110000, currency: 'EUR', period: 'annual' },
      postedAt: '2025-10-22T10:00:00.000Z',
      closesAt: '2030-12-31T10:00:00.000Z',
    });
    expect(mapHimalayasJob(analyst)?.salary).toEqual({ min: 45, max: 60, currency: 'USD', period: 'hourly' });
  });

  it('maps an Arbeitnow job, reading remote only when flagged', () => {
    const [student, devops] = read('arbeitnow/job-board-api.json')['data']!;
    expect(mapArbeitnowJob(student)).toMatchObject({ sourcePostingId: 'werkstudent-marketing-hamburg-900003', location: 'Hamburg', employmentType: 'Working student', postedAt: '2025-10-21T11:00:00.000Z' });
    expect(mapArbeitnowJob(student)?.remoteFlag).toBeUndefined();
    expect(mapArbeitnowJob(devops)?.remoteFlag).toBe('remote');
  });

  it('unescapes an Arbeitnow description that arrives escaped once more (as in the real feed)', () => {
    const job = { slug: 's', title: 't', description: '&lt;p&gt;Fish &amp;amp; chips&lt;/p&gt;' };
    expect(mapArbeitnowJob(job)?.descriptionHtml).toBe('<p>Fish &amp; chips</p>');
  });

  it('skips items without an id or a title', () => {
    expect(mapRemotiveJob({ title: 'x' })).toBeNull();
    expect(mapHimalayasJob({ guid: 'g' })).toBeNull();
    expect(mapArbeitnowJob({ slug: 's' })).toBeNull();
  });
});
