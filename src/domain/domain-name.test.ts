import { describe, expect, it } from 'vitest';
import { bareDomain, legacyHostDomain } from './domain-name.ts';
import { identityKey, isOptedOut } from './employer.ts';

describe('company domains are registrable domains (Public Suffix List, issue #15 class 6)', () => {
  it.each([
    ['careers.acme.co.uk', 'acme.co.uk'],
    ['https://www.Acme.com/careers', 'acme.com'],
    ['jobs.example.com.au', 'example.com.au'],
    ['acme.github.io', 'acme.github.io'],
    ['boards.eu.greenhouse.io', 'greenhouse.io'],
  ])('%s → %s', (input, domain) => {
    expect(bareDomain(input)).toBe(domain);
  });

  it.each(['co.uk', 'localhost', '10.0.0.1', '', 'not a domain'])('refuses %j', (input) => {
    expect(bareDomain(input)).toBeUndefined();
  });

  it('names the whole host only where it differs from the registrable domain', () => {
    expect(legacyHostDomain('careers.acme.co.uk')).toBe('careers.acme.co.uk');
    expect(legacyHostDomain('www.acme.co.uk')).toBeUndefined();
  });

  it('keys an employer by its registrable domain, and an opt-out covers its subdomains', () => {
    expect(identityKey({ name: 'Acme', domain: 'careers.acme.co.uk' })).toBe('domain:acme.co.uk');
    const optouts = { domains: new Set(['acme.co.uk']), identityKeys: new Set<string>() };
    expect(isOptedOut(optouts, { name: 'Acme', domain: 'https://careers.acme.co.uk/jobs' })).toBe(true);
    expect(isOptedOut(optouts, { name: 'Other', domain: 'acme.com' })).toBe(false);
    // An opt-out recorded with a whole host before this rule still holds.
    expect(isOptedOut({ domains: new Set(['careers.acme.co.uk']), identityKeys: new Set() }, { name: 'Acme', domain: 'careers.acme.co.uk' })).toBe(true);
  });
});
