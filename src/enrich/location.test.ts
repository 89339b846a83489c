import { describe, expect, it } from 'vitest';
import { resolveLocation } from './location.ts';

// Location strings are copied from the recorded Ashby boards (/work/shared/data/ashby/boards.tar.gz);
// the board file each comes from is named in the test.
describe('resolveLocation: free text', () => {
  it.each([
    ['AtomicSemi.json', 'San Francisco Office', { country: 'US', city: 'San Francisco', state: 'CA' }],
    ['Commure-Athelas.json', 'San Francisco, CA', { country: 'US', city: 'San Francisco', state: 'CA' }],
    ['ramp.json', 'New York, NY (HQ)', { country: 'US', city: 'New York', state: 'NY' }],
    ['dust.json', 'NYC', { country: 'US', city: 'New York', state: 'NY' }],
    ['Lambda.json', 'Berlin, Germany', { country: 'DE', city: 'Berlin' }],
    ['Abridge.json', 'San Francisco-Hybrid', { country: 'US', city: 'San Francisco', state: 'CA' }],
    ['replit.json', 'Foster City, CA (Hybrid) In office M,W,F', { country: 'US', city: 'Foster City', state: 'CA' }],
    ['focused.json', 'Darmstadt, DE', { country: 'DE', city: 'Darmstadt' }],
    ['onebrief.json', 'Stuttgart, GER', { country: 'DE', city: 'Stuttgart' }],
    ['bjakcareer.json', 'Seoul, Korea', { country: 'KR', city: 'Seoul' }],
    ['ema.json', 'India - Bengaluru', { country: 'IN', city: 'Bangalore' }],
    ['surreal.json', 'Mexico, Mexico City', { country: 'MX', city: 'Mexico City' }],
    ['elevenlabs.json', 'Washington, D.C.', { country: 'US', city: 'Washington', state: 'DC' }],
    ['prompt.json', 'Hoboken,NJ', { country: 'US', city: 'Hoboken', state: 'NJ' }],
    ['kodex.json', 'Remote (Boston, MA - Preferred)', { country: 'US', city: 'Boston', state: 'MA' }],
    ['Forward%20Financing.json', 'Remote - Alberta, Canada', { country: 'CA' }],
    ['directive.json', 'Tijuana, BC', { country: 'MX', city: 'Tijuana' }],
  ])('%s: %j', (_board, text, expected) => {
    expect(resolveLocation(text, [])).toEqual(expected);
  });

  it.each([
    ['vantageanalytics.json', 'Remote in USA'],
    ['Forward%20Financing.json', 'Remote - United States'],
    ['finni-health.json', 'US Remote'],
    ['firstround.json', 'Remote (US)'],
    ['claylabs.json', 'USA - Remote'],
  ])('%s: %j is the US with no city', (_board, text) => {
    expect(resolveLocation(text, [])).toEqual({ country: 'US' });
  });

  it('reads "CAN - Remote" (dandy.json) as Canada by its ISO alpha-3 code', () => {
    expect(resolveLocation('CAN - Remote', [])).toEqual({ country: 'CA' });
  });

  it('reads "London or Remote (UK)" (the brief\'s example) as London, GB', () => {
    expect(resolveLocation('London or Remote (UK)', [])).toEqual({ country: 'GB', city: 'London' });
  });

  it.each([
    ['1password.json', 'Remote (United States | Canada)'],
    ['orchard.json', 'LatAm'],
    ['Nango.json', 'Europe'],
    ['WunderGraph.json', 'EMEA'],
    ['alan.json', 'Anywhere in France, Belgium, Spain'],
    ['capimoney.json', 'Paris or London'],
    ['Vetcove.json', 'Remote '],
    ['bitvavo.json', 'Headquarters'],
  ])('%s: %j publishes no country', (_board, text) => {
    expect(resolveLocation(text, [])).toEqual({});
  });

  it('keeps the country but no city when two cities are named (cursor.json "SF / NY")', () => {
    expect(resolveLocation('SF / NY', [])).toEqual({ country: 'US' });
  });

  it('reads an unknown place followed by a US state as a city of that state', () => {
    // finni-health.json, hims-and-hers.json, Jerry.ai.json, playpowerlabs.json, dandy.json
    expect(resolveLocation('New Albany, Ohio', [])).toEqual({ country: 'US', city: 'New Albany', state: 'OH' });
    expect(resolveLocation('Lafayette, Georgia ', [])).toEqual({ country: 'US', city: 'Lafayette', state: 'GA' });
    expect(resolveLocation('Buffalo, New York', [])).toEqual({ country: 'US', city: 'Buffalo', state: 'NY' });
    expect(resolveLocation('Dover, DE, USA', [])).toEqual({ country: 'US', city: 'Dover', state: 'DE' });
    expect(resolveLocation('USA - Lehi UT', [])).toEqual({ country: 'US', city: 'Lehi', state: 'UT' });
    expect(resolveLocation('Weave - Headquarters (Lehi, UT)', [])).toEqual({ country: 'US', city: 'Lehi', state: 'UT' });
  });

  it('lets an explicit state overrule a gazetteer city of the same name', () => {
    // livinghr.json "Naples, FL" vs satispay.json "Naples, Italy"; finni-health.json "Portland, Tennessee", "Ontario, Ohio"
    expect(resolveLocation('Naples, FL', [])).toEqual({ country: 'US', city: 'Naples', state: 'FL' });
    expect(resolveLocation('Naples, Italy', [])).toEqual({ country: 'IT', city: 'Naples' });
    expect(resolveLocation('Portland, Tennessee', [])).toEqual({ country: 'US', city: 'Portland', state: 'TN' });
    expect(resolveLocation('Ontario, Ohio', [])).toEqual({ country: 'US', city: 'Ontario', state: 'OH' });
  });

  it('does not read a country inside an unrelated name (neofinancial.json "Neo Gulf Canada Square")', () => {
    expect(resolveLocation('Neo Gulf Canada Square', [])).toEqual({});
  });

  it('recognises country names in other languages and aliases', () => {
    expect(resolveLocation('Deutschland', [])).toEqual({ country: 'DE' });
    expect(resolveLocation('Türkiye', [])).toEqual({ country: 'TR' });
    expect(resolveLocation('Ivory Coast', [])).toEqual({ country: 'CI' });
    expect(resolveLocation('Czech Republic (Remote)', [])).toEqual({ country: 'CZ' });
    expect(resolveLocation('Scotland', [])).toEqual({ country: 'GB' });
    expect(resolveLocation('U.K.', [])).toEqual({ country: 'GB' });
    expect(resolveLocation('United States of America', [])).toEqual({ country: 'US' });
  });
});

describe('resolveLocation: structured locations', () => {
  it('uses an Ashby postal address (ramp.json, "Customer Experience Agent" primary address)', () => {
    expect(resolveLocation('New York, NY (HQ)', [{ country: 'USA', region: 'NY', city: 'New York City' }])).toEqual({ country: 'US', city: 'New York', state: 'NY' });
  });

  it('gets the country from the address when the text says only "Remote"', () => {
    // Synergy%20Pet%20Group.json "Customer Care Specialist": "United States | Remote", address country only
    expect(resolveLocation('United States | Remote', [{ country: 'United States' }])).toEqual({ country: 'US' });
    expect(resolveLocation('Remote', [{ country: 'United States', region: 'California', city: 'San Francisco' }])).toEqual({ country: 'US', city: 'San Francisco', state: 'CA' });
  });

  it('drops the country when secondary locations span two countries', () => {
    // neofinancial.json: Calgary primary with a US secondary would be two countries
    expect(resolveLocation('Toronto', [{ country: 'Canada', region: 'Ontario', city: 'Toronto' }, { text: 'San Francisco' }])).toEqual({});
  });

  it('keeps the country but drops the city when the locations name several cities in it', () => {
    // ramp.json "Customer Experience Agent": New York primary, Miami/San Francisco/Denver secondaries
    const result = resolveLocation('New York, NY (HQ)', [
      { country: 'USA', region: 'NY', city: 'New York City' },
      { text: 'Miami, FL', country: 'USA', region: 'Florida', city: 'Miami' },
      { text: 'San Francisco, CA', country: 'USA', region: 'California ', city: 'San Fransisco' },
      { text: 'Remote (US)', country: 'United States' },
    ]);
    expect(result).toEqual({ country: 'US' });
  });

  it('reads a locality with two cities as no city (Lambda.json)', () => {
    expect(resolveLocation('San Francisco Office', [{ country: 'United States', region: 'California, Washington', city: 'San Francisco, Seattle' }])).toEqual({ country: 'US' });
  });

  it('lets the structured country decide which London is meant (neofinancial.json "Masonville Place")', () => {
    expect(resolveLocation('Masonville Place', [{ country: 'Canada', region: 'Ontario', city: 'London' }])).toEqual({ country: 'CA', city: 'London' });
  });

  it('treats a "European Union" address as a region, not a country (Nango.json)', () => {
    expect(resolveLocation('Europe', [{ country: 'European Union' }])).toEqual({});
  });

  it('reads upper-case Norwegian structured fields (NAV feed: country NORGE, city OSLO)', () => {
    expect(resolveLocation(undefined, [{ country: 'NORGE', city: 'OSLO' }])).toEqual({ country: 'NO', city: 'Oslo' });
    expect(resolveLocation(undefined, [{ country: 'NORGE', city: 'ULVIK' }])).toEqual({ country: 'NO', city: 'Ulvik' });
  });

  it('returns nothing for empty evidence', () => {
    expect(resolveLocation(undefined, [])).toEqual({});
    expect(resolveLocation('   ', [{ country: '', region: '', city: '' }])).toEqual({});
  });
});
