/**
 * The Personio connector on the hand-written Harbourline feed (fixtures/personio, in the documented
 * XML feed shape), fetched from the loopback replay server on the real feed's path.
 */
import { describe, expect, it } from 'vitest';
import { useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createPersonioConnector, personioSalary } from './personio.ts';

const replay = useConnectorReplay('personio', createPersonioConnector);
const { target } = replay;
const xml = (body: string) => ({ status: 200, body, headers: { 'content-type': 'application/xml' } });


describe('Personio connector', () => {
  it('fetches {company}.jobs.personio.de/xml and maps a position field by field', async () => {
    expect(createPersonioConnector('https://{company}.jobs.personio.de').boardUrl(target('harbourline'))).toBe('https://harbourline.jobs.personio.de/xml');
    const outcome = await replay.fetched('harbourline');
    expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual(['1873401', '1873402', '1873403', '1873404']);
    expect(outcome.postings[0]).toEqual({
      sourcePostingId: '1873401',
      title: 'Disponent (m/w/d) Containerlogistik',
      company: { name: 'Harbourline Logistics GmbH' },
      location: 'Bremen',
      locations: [{ text: 'Bremen' }, { text: 'Hamburg' }],
      employmentType: 'permanent, full-time',
      postedAt: '2026-09-30T09:12:44.000Z',
      descriptionHtml:
        '<h3>Deine Aufgaben</h3><ul><li>Du planst Container-Transporte zwischen Bremerhaven, Hamburg und dem Hinterland.</li><li>Du stimmst dich mit Reedereien &amp; Terminals ab.</li></ul>' +
        '<h3>Dein Profil</h3><ul><li>Ausbildung als Kaufmann/-frau für Spedition und Logistikdienstleistung</li><li>Sehr gute Deutschkenntnisse</li></ul>',
      salary: { min: 48000, max: 56000, currency: 'EUR', period: 'annual' },
      applyUrl: 'https://harbourline.jobs.personio.de/job/1873401',
      postingUrl: 'https://harbourline.jobs.personio.de/job/1873401',
      hints: { department: 'Operations', team: 'logistics_and_transportation' },
    });
    expect(outcome.postings.map((p) => p.salary)).toEqual([
      { min: 48000, max: 56000, currency: 'EUR', period: 'annual' },
      { min: 6500, currency: 'EUR', period: 'monthly' },
      { min: 15.5, max: 17, currency: 'EUR', period: 'hourly' },
      undefined,
    ]);
    expect(outcome.postings[3]!.title).toBe('Werkstudent (m/w/d) People & Culture');
  });

  it('reads an empty feed as no positions, and refuses HTML, an empty body, truncated XML and another root', async () => {
    replay.loop.replay.override('/personio/empty/xml', xml('<?xml version="1.0" encoding="UTF-8"?>\n<workzag-jobs>\n</workzag-jobs>\n'));
    expect(await replay.connector.crawl(target('empty'), replay.loop.fetcher)).toMatchObject({ kind: 'fetched', postings: [] });
    for (const body of ['<!doctype html><html><body><p>Maintenance<br></body></html>', '', '<workzag-jobs><position><id>1</id>', '<jobs><position><id>1</id><name>A</name></position></jobs>']) {
      replay.loop.replay.override('/personio/broken/xml', xml(body));
      await expect(replay.connector.crawl(target('broken'), replay.loop.fetcher), body).rejects.toMatchObject({ kind: 'malformed' });
    }
  });

  it('keeps an unknown salary type as period null', () => {
    expect(personioSalary({ min: '100', max: '', currencyCode: 'gbp', type: 'per-shift' })).toEqual({ min: 100, currency: 'GBP', period: null });
    expect(personioSalary({ min: '', max: '', currencyCode: 'EUR', type: 'yearly' })).toBeUndefined();
  });
});
