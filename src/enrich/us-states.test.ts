import { describe, expect, it } from 'vitest';
import { US_STATES as FILTER_STATES } from '../domain/vocabulary.ts';
import { US_STATES as GAZETTEER_STATES } from './gazetteer.ts';

describe('US state codes', () => {
  it('are the same for the state filter as for the location enrichment that sets them', () => {
    const gazetteer = Object.fromEntries(GAZETTEER_STATES.map(([name, code]) => [code, name]));
    expect(FILTER_STATES).toEqual(gazetteer);
  });
});
