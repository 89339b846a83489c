/**
 * Bundesagentur für Arbeit Jobsuche end to end: a loopback server answers on the search API's real path
 * (`/pc/v4/jobs` under the service root), read by the production fetcher, the `bundesagentur` connector,
 * enrichment, the quality gate and the ledger.
 *
 * No licensed recording of a Jobsuche answer exists (shared data `bundesagentur/SOURCE.md`), so the
 * answers are written here in the shape bund.dev documents ("Jobsuche API", jobsuche.api.bund.dev:
 * `{stellenangebote[], maxErgebnisse, page, size}`, offers with `refnr, titel, beruf, arbeitgeber,
 * arbeitsort{plz, ort, region, land}, aktuelleVeroeffentlichungsdatum, externeUrl`) and, for the salary
 * fields, the newer `ergebnisliste` shape (`gehaltsspanneVon/Bis`, `verguetungsangabe`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from './helpers/agency-server.ts';
import { agencyPipeline, type AgencyPipeline } from './helpers/agency-pipeline.ts';

const BOARD = 'was=Pflegefachkraft&wo=Leipzig';
const ALL = `/pc/v4/jobs?was=Pflegefachkraft&wo=Leipzig&angebotsart=1&page=1&size=100`;
const DIRECT = `/pc/v4/jobs?was=Pflegefachkraft&wo=Leipzig&angebotsart=1&zeitarbeit=false&pav=false&page=1&size=100`;

const offer = (refnr: string, titel: string, arbeitgeber: string, extra: Record<string, unknown> = {}) => ({
  beruf: 'Pflegefachmann/-frau',
  titel,
  refnr,
  arbeitsort: { plz: '04103', ort: 'Leipzig', strasse: 'Liebigstraße 20', region: 'SACHSEN', land: 'Deutschland', koordinaten: { lat: 51.33, lon: 12.39 } },
  arbeitgeber,
  aktuelleVeroeffentlichungsdatum: '2026-11-20',
  eintrittsdatum: '2027-01-01',
  modifikationsTimestamp: '2026-11-20T09:12:44.123',
  kundennummerHash: 'abc',
  ...extra,
});
const CLINIC = offer('10000-1184867112-S', 'Pflegefachkraft (m/w/d) Intensivstation', 'Universitätsklinikum Leipzig AöR', { externeUrl: 'https://www.uniklinikum-leipzig.de/karriere/123' });
const HOME = offer('10001-1000000001-S', 'Pflegefachkraft Altenpflege', 'Pflegeheim Am Park gGmbH');
// Newer shape, with a published salary range.
const SALARIED = {
  stellenangebotsTitel: 'Pflegefachkraft ambulant (m/w/d)',
  referenznummer: '10002-1000000002-S',
  firma: 'Ambulanter Pflegedienst Süd GmbH',
  hauptberuf: 'Pflegefachmann/-frau',
  alleBerufe: ['Pflegefachmann/-frau', 'Altenpfleger/in'],
  stellenlokationen: [{ adresse: { plz: '04275', ort: 'Leipzig', region: 'SACHSEN', land: 'DEUTSCHLAND' } }],
  arbeitszeitVollzeit: false,
  arbeitszeitTeilzeitVormittag: true,
  verguetungsangabe: 'MONATSGEHALT',
  gehaltsspanneVon: 3400,
  gehaltsspanneBis: 3900,
  datumErsteVeroeffentlichung: '2026-11-19',
};
const TEMP = offer('14225-9e7ac7a2671f1076-S', 'Pflegefachkraft (m/w/d) – Arbeitnehmerüberlassung', 'Medi Personal GmbH');

const answer = (items: unknown[], newer = false) => ({ json: newer ? { ergebnisliste: items, maxErgebnisse: items.length, page: 1, size: 100 } : { stellenangebote: items, maxErgebnisse: items.length, page: 1, size: 100 } });

describe('Bundesagentur für Arbeit Jobsuche over a loopback server on the real path', () => {
  let p: AgencyPipeline;
  beforeAll(async () => {
    p = await agencyPipeline('bundesagentur', BOARD);
    p.server.set(ALL, answer([CLINIC, HOME, SALARIED, TEMP]));
    p.server.set(DIRECT, answer([CLINIC, HOME, SALARIED]));
  });
  afterAll(async () => {
    await p?.close();
  });

  it('reads the search with the public client id, maps address parts and the structured salary, and withholds the staffing offer', async () => {
    const report = await p.crawl();
    expect(report).toMatchObject({ outcome: 'fetched', counts: { created: 4 } });
    const hits = p.server.since(0);
    expect(hits.map((h) => h.url)).toEqual([ALL, DIRECT]);
    for (const h of hits) expect(h.headers['x-api-key']).toBe('jobboerse-jobsuche');
    const rows = await p.rows();
    expect(rows.get(CLINIC.refnr)).toMatchObject({
      status: 'live',
      served: true,
      company_name: 'Universitätsklinikum Leipzig AöR',
      country: 'DE',
      city: 'Leipzig',
      apply_url: 'https://www.uniklinikum-leipzig.de/karriere/123',
      posting_url: 'https://www.arbeitsagentur.de/jobsuche/jobdetail/10000-1184867112-S',
      source_type: 'public_agency',
      provider_type: 'government',
    });
    expect(rows.get(CLINIC.refnr)!.posted_at.toISOString()).toBe('2026-11-19T23:00:00.000Z');
    const salaried = rows.get(SALARIED.referenznummer)!;
    expect(salaried).toMatchObject({ salary_min: 3400, salary_max: 3900, salary_currency: 'EUR', salary_period: 'monthly', salary_source: 'structured', employment_type: 'Part-time', served: true });
    expect(salaried.field_sources).toMatchObject({ salary: 'published', location: 'published', employment_type: 'published', posted_at: 'published' });
    // Only listed with zeitarbeit/pav included: the staffing firm's offer, stored withheld.
    expect(rows.get(TEMP.refnr)).toMatchObject({ poster_type: 'staffing', served: false });
  });

  it('recrawls an unchanged search with If-None-Match: every page 304, no row touched', async () => {
    const before = await p.snapshot();
    const from = p.server.hits.length;
    expect((await p.crawl()).outcome).toBe('not_modified');
    const hits = p.server.since(from);
    expect(hits.map((h) => h.status)).toEqual([304, 304]);
    const after = (await p.snapshot()) as { jobs: { id: string; content_hash: string }[]; events: number };
    expect(after.events).toBe((before as typeof after).events);
    expect(after.jobs.map((j) => [j.id, j.content_hash])).toEqual((before as typeof after).jobs.map((j) => [j.id, j.content_hash]));
  });

  for (const [form, failure] of Object.entries(FAILURES)) {
    it(`changes nothing when the search answers: ${form}`, async () => {
      const before = await p.snapshot();
      p.server.set(DIRECT, failure);
      expect((await p.crawl()).outcome).toBe('failed');
      expect(await p.snapshot()).toEqual(before);
      p.server.set(DIRECT, answer([CLINIC, HOME, SALARIED]));
    });
  }

  it('closes an offer whose end of publication has passed (the agency stops listing it) as not_seen after the usual count', async () => {
    p.server.set(ALL, answer([CLINIC, SALARIED, TEMP]));
    p.server.set(DIRECT, answer([CLINIC, SALARIED]));
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get(HOME.refnr)).toMatchObject({ status: 'live', missed_crawls: 1 });
    expect((await p.crawl()).outcome).toBe('not_modified');
    expect((await p.rows()).get(HOME.refnr)).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
  });
});
