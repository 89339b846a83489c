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

describe('slugs of non-Latin and German titles (issue #15 class 6)', () => {
  it.each([
    ['Программист', 'programmist'],
    ['Straßenbauer', 'strassenbauer'],
    ['Müller & Söhne GmbH', 'mueller-and-soehne-gmbh'],
    ['Ведущий инженер-программист (Москва)', 'veduschiy-inzhener-programmist-moskva'],
  ])('%s → %s', (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });

  it('never exceeds 80 characters nor ends with a hyphen', () => {
    const slug = slugify(`${'Инженер '.repeat(20)}`);
    expect(slug.length).toBeLessThanOrEqual(80);
    expect(slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });
});
