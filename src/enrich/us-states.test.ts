import { describe, expect, it } from 'vitest';
import { US_STATES } from '../domain/vocabulary.ts';
import { US_STATE_ALIASES } from './gazetteer.ts';
import { resolveLocation } from './location.ts';

describe('US state codes', () => {
  it('come from the state filter\'s vocabulary; the gazetteer only adds spellings of those states', () => {
    expect(Object.keys(US_STATE_ALIASES).filter((code) => !(code in US_STATES))).toEqual([]);
  });

  it('are what location enrichment sets, by name, by code and by alias', () => {
    expect(resolveLocation('Austin, Texas', [])).toMatchObject({ country: 'US', state: 'TX' });
    expect(resolveLocation('Washington, DC', [])).toMatchObject({ country: 'US', state: 'DC' });
    expect(resolveLocation('Boston, Mass.', [])).toMatchObject({ country: 'US', state: 'MA' });
  });
});
