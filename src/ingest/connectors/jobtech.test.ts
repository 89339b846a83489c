/**
 * The JobStream ad mapping on JobTech's own recorded (anonymised) ads, fixtures/jobtech (Apache-2.0):
 * the file is a search result, so the ads are read from `hits.hits[]._source` here; the connector's
 * paths and lifecycle are in test/agency-jobtech.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../test/helpers/fixtures.ts';
import { zonedInstant } from './common.ts';
import { mapJobtechAd } from './jobtech.ts';

const recorded = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'jobtech', 'jobsearch-es-result-2-ads-anonymised.json'), 'utf8')) as { hits: { hits: { _source: unknown }[] } };
const target = { id: 'jobtech:sweden', providerId: 'jobtech', board: 'sweden' };

describe('JobStream ad mapping (recorded JobTech test ads)', () => {
  it('maps ad 23174210 field by field', () => {
    const posting = mapJobtechAd(recorded.hits.hits[0]!._source, target);
    expect(posting).toMatchObject({
      sourcePostingId: '23174210',
      title: 'Java-utvecklare',
      company: { name: 'Not4real dream business AB' },
      location: 'Regnbågsvägen 1337, 13141 Nacka',
      locations: [{ text: 'Regnbågsvägen 1337, 13141 Nacka', city: 'Nacka', region: 'Stockholms län', country: 'Sverige' }],
      employmentType: 'Heltid',
      // Swedish local time (CET in March, CEST in May).
      postedAt: '2019-03-12T23:00:00.000Z',
      closesAt: '2019-05-12T21:59:59.000Z',
      applyUrl: 'http://not4realaddress.com',
      hints: { department: 'Data/IT', occupationSeries: ['2512 - Mjukvaru- och systemutvecklare m.fl.', 'Backend-utvecklare'] },
    });
    expect(posting?.descriptionText).toContain('Java-utvecklare');
  });

  it('maps the second ad without a country (the address names none)', () => {
    const posting = mapJobtechAd(recorded.hits.hits[1]!._source, target);
    expect(posting).toMatchObject({ sourcePostingId: '23187561', company: { name: 'hittepå SKÅNE AB' }, locations: [{ city: 'Malmö', region: 'Skåne län' }] });
    expect(posting?.locations[0]).not.toHaveProperty('country');
  });

  it('reads local times in the given zone and refuses what is not a date-time', () => {
    expect(zonedInstant('2026-07-01T12:00:00', 'Europe/Stockholm')).toBe('2026-07-01T10:00:00.000Z');
    expect(zonedInstant('2026-07-01T12:00:00Z', 'Europe/Stockholm')).toBe('2026-07-01T12:00:00.000Z');
    expect(zonedInstant('2026-07-01', 'Europe/Stockholm')).toBeUndefined();
    expect(zonedInstant(null, 'Europe/Stockholm')).toBeUndefined();
  });
});
