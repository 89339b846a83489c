import { describe, expect, it } from 'vitest';
import { foldForMatch, nameToFind, pageNamesCompany } from './website-verifier.ts';

describe('website name proof', () => {
  it('folds case, diacritics, entities and punctuation the same way on both sides', () => {
    expect(foldForMatch('Développeur  Sénior!')).toBe('developpeur senior');
    expect(pageNamesCompany('<p>Welcome to HIMS &amp; HERS.</p>', 'Hims & Hers')).toBe(true);
    expect(pageNamesCompany('<html><head><title>DeepL Translate: the best translator</title></head><body></body></html>', 'DeepL')).toBe(true);
  });

  it('needs whole words, and does not need a legal-form suffix', () => {
    expect(pageNamesCompany('<p>Acmeville tours</p>', 'Acme')).toBe(false);
    expect(pageNamesCompany('<p>Acme builds rockets</p>', 'Acme, Inc.')).toBe(true);
    expect(nameToFind('Otter Robotics GmbH')).toBe('otter robotics');
    expect(nameToFind('Inc')).toBe('inc');
  });

  it('reads visible text, not link targets or image sources', () => {
    expect(pageNamesCompany('<a href="https://kestrel.example">home</a><img src="kestrel.png">', 'Kestrel')).toBe(false);
    expect(pageNamesCompany('<a href="/">Kestrel</a>', 'Kestrel')).toBe(true);
  });
});
