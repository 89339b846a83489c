import { describe, expect, it } from 'vitest';
import { jobSlug, slugify } from './slug.ts';

describe('slugs', () => {
  it('fold diacritics and punctuation into hyphenated ASCII words', () => {
    expect(slugify('Développeur Sénior (H/F) – Paris')).toBe('developpeur-senior-h-f-paris');
    expect(slugify('Research & Development')).toBe('research-and-development');
  });

  it('fall back when nothing readable remains', () => {
    expect(slugify('日本語', 'job')).toBe('job');
  });

  it('end a job slug with the first 8 characters of its id', () => {
    expect(jobSlug('Developer, Backend', '8481df25-44f3-4a9b-b3ce-ec244276db31')).toBe('developer-backend-8481df25');
  });
});
