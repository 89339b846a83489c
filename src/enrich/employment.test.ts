import { describe, expect, it } from 'vitest';
import { mapEmploymentType } from './employment.ts';

describe('mapEmploymentType', () => {
  it.each([
    // Ashby employmentType (all five values occur in the recorded boards)
    ['FullTime', 'Full-time'],
    ['PartTime', 'Part-time'],
    ['Contract', 'Contract'],
    ['Intern', 'Internship'],
    ['Temporary', 'Temporary'],
    // Lever commitment spellings
    ['Full-time', 'Full-time'],
    ['Full Time', 'Full-time'],
    ['Part-time', 'Part-time'],
    ['Internship', 'Internship'],
    ['Permanent - Full Time', 'Full-time'],
    ['Full-time Permanent', 'Full-time'],
    ['Fixed Term', 'Temporary'],
    // USAJOBS appointment_type
    ['Temporary', 'Temporary'],
    ['Term', 'Temporary'],
    ['Seasonal', 'Temporary'],
    ['Internships', 'Internship'],
    // Common API spellings and other languages
    ['full_time', 'Full-time'],
    ['part-time', 'Part-time'],
    ['freelance', 'Contract'],
    ['contractor', 'Contract'],
    ['Vollzeit', 'Full-time'],
    ['Teilzeit', 'Part-time'],
    ['CDD', 'Temporary'],
    ['Vikariat', 'Temporary'],
  ])('%s → %s', (raw, expected) => {
    expect(mapEmploymentType(raw)).toBe(expected);
  });

  it.each([
    // Says the contract has no end date, not how many hours
    'Permanent',
    'CDI',
    'Fast',
    // USAJOBS values that describe a hiring path or an internal move
    'Summer',
    'Recent Graduates',
    'Detail',
    'Multiple',
    'Temporary Promotion',
    'Agency Employees Only',
    // Two different types, or nothing
    'Full-time / Part-time',
    'International',
    '',
    '   ',
  ])('%j → undefined', (raw) => {
    expect(mapEmploymentType(raw)).toBeUndefined();
  });

  it('is undefined when the source gives nothing (Greenhouse has no employment type)', () => {
    expect(mapEmploymentType(undefined)).toBeUndefined();
  });
});
