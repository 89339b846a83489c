/**
 * Bundesagentur für Arbeit Jobsuche end to end: a loopback server answers on the search API's real paths
 * (`/pc/v6/jobs`, and `/pc/v4/jobs` where v6 is refused, under the service root), read by the
 * production fetcher, the `bundesagentur` connector, enrichment, the quality gate and the ledger.
 *
 * No licensed recording of a Jobsuche answer exists (shared data `bundesagentur/SOURCE.md`), so the
 * answers are written here in the documented shapes: v4 as bund.dev documents it ("Jobsuche API",
 * jobsuche.api.bund.dev: `{stellenangebote[], maxErgebnisse, page, size}`, offers with `refnr, titel,
 * beruf, arbeitgeber, arbeitsort{plz, ort, region, land}, aktuelleVeroeffentlichungsdatum, externeUrl`),
 * and v6 in the `ergebnisliste` shape `bundesagentur/SOURCE.md` describes from a real 2026 answer
 * (`referenznummer, stellenangebotsTitel, firma, hauptberuf, alleBerufe, stellenlokationen[{adresse}],
 * datumErsteVeroeffentlichung, externeURL, arbeitszeit*, verguetungsangabe, gehaltsspanneVon/Bis,
 * vertragsdauer`, plus `maxErgebnisse, page, size, woOutput, facetten`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FAILURES } from './helpers/agency-server.ts';
import { itChangesNothingOnFailure, useAgencyPipeline } from './helpers/agency-pipeline.ts';

const BOARD = 'was=Pflegefachkraft&wo=Leipzig';
const ALL = `/pc/v4/jobs?was=Pflegefachkraft&wo=Leipzig&angebotsart=1&page=1&size=100`;
const DIRECT = `/pc/v4/jobs?was=Pflegefachkraft&wo=Leipzig&angebotsart=1&zeitarbeit=false&pav=false&page=1&size=100`;
const V6_ALL = ALL.replace('/pc/v4/', '/pc/v6/');
const V6_DIRECT = DIRECT.replace('/pc/v4/', '/pc/v6/');

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

describe('Bundesagentur für Arbeit Jobsuche over a loopback server where only the v4 search answers', () => {
  const p = useAgencyPipeline('bundesagentur', BOARD);
  beforeAll(() => {
    // The newer search is refused here, as v4 is refused by the 2026 service: the connector falls back.
    p.server.set(V6_ALL, { status: 403, body: '{"message":"Forbidden"}' });
    p.server.set(ALL, answer([CLINIC, HOME, SALARIED, TEMP]));
    p.server.set(DIRECT, answer([CLINIC, HOME, SALARIED]));
  });

  it('reads the search with the public client id, maps address parts and the structured salary, and withholds the staffing offer', async () => {
    const report = await p.crawl();
    expect(report).toMatchObject({ outcome: 'fetched', counts: { created: 4 } });
    const hits = p.server.since(0);
    expect(hits.map((h) => [h.url, h.status])).toEqual([
      [V6_ALL, 403],
      [ALL, 200],
      [DIRECT, 200],
    ]);
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
    // Only listed with zeitarbeit/pav included: the staffing firm's offer, left out of the default set as
    // the spec's staffing poster type (re-admitted by include_poster_type, so no withholding kind), with
    // the rule saying the source itself marked it.
    expect(rows.get(TEMP.refnr)).toMatchObject({ status: 'live', poster_type: 'staffing', poster_rule_id: 'poster.source_stated', withheld_kind: null, served: false });
  });

  it('recrawls an unchanged search with If-None-Match: every page 304, no row touched', async () => {
    const before = await p.contents();
    const from = p.server.hits.length;
    expect((await p.crawl()).outcome).toBe('not_modified');
    const hits = p.server.since(from);
    expect(hits.map((h) => h.status)).toEqual([304, 304]);
    expect(await p.contents()).toEqual(before);
  });

  itChangesNothingOnFailure(p, 'the search', DIRECT, answer([CLINIC, HOME, SALARIED]));

  it('closes an offer whose end of publication has passed (the agency stops listing it) as not_seen after the usual count', async () => {
    p.server.set(ALL, answer([CLINIC, SALARIED, TEMP]));
    p.server.set(DIRECT, answer([CLINIC, SALARIED]));
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get(HOME.refnr)).toMatchObject({ status: 'live', missed_crawls: 1 });
    expect((await p.crawl()).outcome).toBe('not_modified');
    expect((await p.rows()).get(HOME.refnr)).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
  });
});

/** The same search in the v6 shape (field set of the real 2026 answer in `bundesagentur/SOURCE.md`). */
const v6Offer = (referenznummer: string, stellenangebotsTitel: string, firma: string, extra: Record<string, unknown> = {}) => ({
  stellenangebotsart: 'ARBEIT',
  stellenangebotsTitel,
  quereinstiegGeeignet: false,
  arbeitszeitSchichtNachtWochenende: false,
  arbeitszeitTeilzeitAbend: false,
  arbeitszeitTeilzeitNachmittag: false,
  arbeitszeitTeilzeitVormittag: false,
  arbeitszeitTeilzeitFlexibel: false,
  arbeitszeitVollzeit: true,
  eintrittszeitraum: { von: '2027-01-01' },
  verguetungsangabe: 'KEINE_ANGABEN',
  vertragsdauer: 'UNBEFRISTET',
  istGeringfuegigeBeschaeftigung: false,
  stellenlokationen: [{ adresse: { strasse: 'Liebigstraße', hausnummer: '20', plz: '04103', ort: 'Leipzig', region: 'SACHSEN', land: 'DEUTSCHLAND' }, breite: 51.33, laenge: 12.39 }],
  homeofficemoeglich: false,
  veroeffentlichungszeitraum: { von: '2026-11-20' },
  datumErsteVeroeffentlichung: '2026-11-20',
  aenderungsdatum: '2026-11-20T09:12:44.123',
  hauptberuf: 'Pflegefachmann/-frau',
  firma,
  referenznummer,
  alleBerufe: ['Pflegefachmann/-frau'],
  ...extra,
});
const V6_CLINIC = v6Offer('10000-1184867112-S', 'Pflegefachkraft (m/w/d) Intensivstation', 'Universitätsklinikum Leipzig AöR', {
  externeURL: 'https://www.uniklinikum-leipzig.de/karriere/123',
  verguetungsangabe: 'JAHRESGEHALT',
  artDerVerguetung: 'GEHALTSSPANNE',
  gehaltsspanneVon: 45000.0,
  gehaltsspanneBis: 52000.0,
});
const V6_HOME = v6Offer('10001-1000000001-S', 'Pflegefachkraft Altenpflege', 'Pflegeheim Am Park gGmbH', { vertragsdauer: 'BEFRISTET', arbeitszeitVollzeit: false, arbeitszeitTeilzeitFlexibel: true });
const V6_TEMP = v6Offer('14225-9e7ac7a2671f1076-S', 'Pflegefachkraft (m/w/d) – Arbeitnehmerüberlassung', 'Medi Personal GmbH');
const v6Answer = (items: unknown[]) => ({ json: { ergebnisliste: items, maxErgebnisse: items.length, page: 1, size: 100, woOutput: { bereinigterOrt: 'Leipzig', suchmodus: 'UMKREISSUCHE' }, facetten: {} } });

describe('Bundesagentur für Arbeit Jobsuche over a loopback server on the v6 search', () => {
  const p = useAgencyPipeline('bundesagentur', BOARD);
  beforeAll(() => {
    p.server.set(V6_ALL, v6Answer([V6_CLINIC, V6_HOME, V6_TEMP]));
    p.server.set(V6_DIRECT, v6Answer([V6_CLINIC, V6_HOME]));
  });

  it('reads the ergebnisliste of /pc/v6/jobs (never asking v4), maps it, and withholds the staffing offer', async () => {
    const report = await p.crawl();
    expect(report).toMatchObject({ outcome: 'fetched', counts: { created: 3 } });
    const hits = p.server.since(0);
    expect(hits.map((h) => [h.url, h.status])).toEqual([
      [V6_ALL, 200],
      [V6_DIRECT, 200],
    ]);
    for (const h of hits) expect(h.headers['x-api-key']).toBe('jobboerse-jobsuche');
    const rows = await p.rows();
    expect(rows.get(V6_CLINIC.referenznummer)).toMatchObject({
      status: 'live',
      served: true,
      company_name: 'Universitätsklinikum Leipzig AöR',
      country: 'DE',
      city: 'Leipzig',
      employment_type: 'Full-time',
      salary_min: 45000,
      salary_max: 52000,
      salary_currency: 'EUR',
      salary_period: 'annual',
      apply_url: 'https://www.uniklinikum-leipzig.de/karriere/123',
      posting_url: 'https://www.arbeitsagentur.de/jobsuche/jobdetail/10000-1184867112-S',
    });
    expect(rows.get(V6_CLINIC.referenznummer)!.posted_at.toISOString()).toBe('2026-11-19T23:00:00.000Z');
    expect(rows.get(V6_CLINIC.referenznummer)!.field_sources).toMatchObject({ salary: 'published', location: 'published', employment_type: 'published', posted_at: 'published' });
    // No amounts stated (KEINE_ANGABEN): no salary, and none made up.
    expect(rows.get(V6_HOME.referenznummer)).toMatchObject({ salary_min: null, employment_type: 'Part-time', served: true });
    expect(rows.get(V6_TEMP.referenznummer)).toMatchObject({ status: 'live', poster_type: 'staffing', poster_rule_id: 'poster.source_stated', withheld_kind: null, served: false });
  });

  it('recrawls an unchanged v6 search with If-None-Match: every page 304, no row touched', async () => {
    const before = await p.snapshot();
    const from = p.server.hits.length;
    expect((await p.crawl()).outcome).toBe('not_modified');
    expect(p.server.since(from).map((h) => [h.url, h.status])).toEqual([
      [V6_ALL, 304],
      [V6_DIRECT, 304],
    ]);
    const after = (await p.snapshot()) as { jobs: { id: string; content_hash: string }[]; events: number };
    expect(after.events).toBe((before as typeof after).events);
    expect(after.jobs.map((j) => [j.id, j.content_hash])).toEqual((before as typeof after).jobs.map((j) => [j.id, j.content_hash]));
  });

  for (const [form, failure] of Object.entries(FAILURES)) {
    it(`changes nothing, and does not fall back to v4, when the v6 search answers: ${form}`, async () => {
      const before = await p.snapshot();
      const from = p.server.hits.length;
      p.server.set(V6_ALL, failure);
      expect((await p.crawl()).outcome).toBe('failed');
      expect(await p.snapshot()).toEqual(before);
      expect(p.server.since(from).filter((h) => h.url.startsWith('/pc/v4/'))).toEqual([]);
      p.server.set(V6_ALL, v6Answer([V6_CLINIC, V6_HOME, V6_TEMP]));
    });
  }

  it('changes nothing when both generations refuse the search', async () => {
    const before = await p.snapshot();
    p.server.set(V6_ALL, { status: 403, body: '{"message":"Forbidden"}' });
    p.server.set(ALL, { status: 403, body: '{"message":"Forbidden"}' });
    const report = await p.crawl();
    expect(report).toMatchObject({ outcome: 'failed', errorKind: 'http_status' });
    expect(await p.snapshot()).toEqual(before);
    p.server.set(V6_ALL, v6Answer([V6_CLINIC, V6_HOME, V6_TEMP]));
  });
});
