/**
 * Who owns a career site's postings (issue 17, "Employer-direct"): the target's domain and company
 * name against a JobPosting's `hiringOrganization`.
 */
import { describe, expect, it } from 'vitest';
import { isSiteOwner, POSTING_PATH } from './career-site.ts';

const owner = { domain: 'acme-robotics.com', name: 'Acme Robotics' };

describe('isSiteOwner', () => {
  it('is the owner when the posting names no organization, or names it by the domain or the company name', () => {
    expect(isSiteOwner(undefined, owner)).toBe(true);
    expect(isSiteOwner({ sameAs: [] }, owner)).toBe(true);
    expect(isSiteOwner({ name: 'Acme Robotics GmbH', sameAs: [] }, owner)).toBe(true);
    expect(isSiteOwner({ name: 'ACME ROBOTICS, Inc.', sameAs: [] }, owner)).toBe(true);
    expect(isSiteOwner({ name: 'Whatever Brand', sameAs: ['https://www.acme-robotics.com/about'] }, owner)).toBe(true);
    expect(isSiteOwner({ name: 'Whatever Brand', sameAs: ['https://careers.acme-robotics.com'] }, owner)).toBe(true);
    // No company name given: the first label of the domain stands for it.
    expect(isSiteOwner({ name: 'Initech', sameAs: [] }, { domain: 'initech.co.uk' })).toBe(true);
  });

  it('is someone else when the organization is on another domain or has another name', () => {
    expect(isSiteOwner({ name: 'Globex Corporation', sameAs: ['https://globex.example'] }, owner)).toBe(false);
    expect(isSiteOwner({ name: 'Acme Robotics', sameAs: ['https://globex.example'] }, { domain: 'jobs-board.example' })).toBe(false);
    expect(isSiteOwner({ name: 'Globex', sameAs: [] }, owner)).toBe(false);
    // A domain that merely ends like the owner's is not the owner's.
    expect(isSiteOwner({ name: 'X', sameAs: ['https://notacme-robotics.com'] }, owner)).toBe(false);
  });
});

describe('POSTING_PATH', () => {
  it('matches paths that name jobs in the languages it lists, not other pages', () => {
    for (const path of ['/jobs/123', '/careers/engineer', '/en/vacancies/4', '/stellenangebote/koch', '/offres-emploi/x', '/vacatures/7', '/job-openings/9']) {
      expect(POSTING_PATH.test(path), path).toBe(true);
    }
    for (const path of ['/blog/robots-in-2026', '/about', '/products/jobsworth-widget', '/']) expect(POSTING_PATH.test(path), path).toBe(false);
  });
});
