/**
 * JobTech JobStream end to end: a loopback server answers on the API's real paths (`/snapshot`, then
 * `/stream?date=`), read by the production fetcher, the `jobtech` connector, enrichment, the quality
 * gate and the ledger.
 *
 * No licensed recording of a `/snapshot` or `/stream` answer exists (shared data `jobtech/SOURCE.md`), so
 * the pages are written here as JobTech documents them ("JobStream", jobtechdev.se/en/components/jobstream
 * and the Swagger of jobstream.api.jobtechdev.se: a JSON array of ads in the JobSearch ad schema; a
 * removed ad `{id, removed: true, removed_date}`), the ads shaped like JobTech's own test ads
 * (fixtures/jobtech).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { itChangesNothingOnFailure, useAgencyPipeline } from './helpers/agency-pipeline.ts';

const ad = (id: string, headline: string, extra: Record<string, unknown> = {}) => ({
  id,
  external_id: null,
  webpage_url: `https://arbetsformedlingen.se/platsbanken/annonser/${id}`,
  headline,
  application_deadline: '2099-05-12T23:59:59',
  number_of_vacancies: 1,
  description: { text: `${headline}: vi söker dig som vill arbeta hos oss.`, text_formatted: null },
  employment_type: { concept_id: 'PFZr_Syz_cUq', label: 'Vanlig anställning', legacy_ams_taxonomy_id: '1' },
  working_hours_type: { concept_id: '6YE1_gAC_R2G', label: 'Heltid', legacy_ams_taxonomy_id: '1' },
  employer: { name: 'Exempel Kommun', workplace: 'Exempel Kommun, Socialtjänsten', organization_number: '2120000000' },
  application_details: { url: `https://jobb.exempel.se/${id}`, via_af: false },
  occupation: { concept_id: 'x1', label: 'Socialsekreterare', legacy_ams_taxonomy_id: '5618' },
  occupation_group: { concept_id: 'x2', label: 'Socialsekreterare', legacy_ams_taxonomy_id: '2661' },
  occupation_field: { concept_id: 'x3', label: 'Socialt arbete', legacy_ams_taxonomy_id: '14' },
  workplace_address: { municipality: 'Uppsala', region: 'Uppsala län', country: 'Sverige', street_address: 'Stationsgatan 12', postcode: '75340', city: 'Uppsala' },
  publication_date: '2026-11-20T09:30:00',
  last_publication_date: '2099-05-12T23:59:59',
  removed: false,
  removed_date: null,
  ...extra,
});

const SNAPSHOT = [ad('30000001', 'Socialsekreterare'), ad('30000002', 'Backend-utvecklare', { occupation_field: { label: 'Data/IT' }, working_hours_type: { label: 'Deltid' } }), ad('30000003', 'Lagerarbetare')];

describe('JobTech JobStream over a loopback server on the real paths', () => {
  const p = useAgencyPipeline('jobtech', 'sweden');
  beforeAll(() => {
    p.server.set('/snapshot', { json: SNAPSHOT });
    p.server.set('/stream', { json: [] });
  });

  it('loads the snapshot first and maps the published fields', async () => {
    const report = await p.crawl();
    expect(report).toMatchObject({ outcome: 'fetched', counts: { created: 3 } });
    expect(p.server.since(0).map((h) => h.url)).toEqual(['/snapshot']);
    const row = (await p.rows()).get('30000001')!;
    expect(row).toMatchObject({
      status: 'live',
      served: true,
      company_name: 'Exempel Kommun, Socialtjänsten',
      country: 'SE',
      employment_type: 'Full-time',
      apply_url: 'https://jobb.exempel.se/30000001',
      posting_url: 'https://arbetsformedlingen.se/platsbanken/annonser/30000001',
      source_type: 'public_agency',
      provider_type: 'government',
    });
    expect(row.posted_at.toISOString()).toBe('2026-11-20T08:30:00.000Z');
    expect(row.field_sources).toMatchObject({ location: 'published', employment_type: 'published', posted_at: 'published', description: 'published' });
    expect((await p.rows()).get('30000002')).toMatchObject({ employment_type: 'Part-time' });
  });

  it('then reads the stream since the last read; an empty stream touches no row', async () => {
    const before = await p.contents();
    const from = p.server.hits.length;
    expect((await p.crawl()).outcome).toBe('not_modified');
    const [hit] = p.server.since(from);
    expect(hit!.url).toMatch(/^\/stream\?date=\d{4}-\d{2}-\d{2}T\d{2}%3A\d{2}%3A\d{2}$/);
    expect(await p.contents()).toEqual(before);
  });

  itChangesNothingOnFailure(p, 'the stream', '/stream');

  it('closes a removed ad as expired_upstream and adds a new one from the stream', async () => {
    p.server.set('/stream', { json: [{ id: '30000002', removed: true, removed_date: '2026-11-21T10:00:00' }, ad('30000004', 'Undersköterska')] });
    expect((await p.crawl()).outcome).toBe('fetched');
    const rows = await p.rows();
    expect(rows.get('30000002')).toMatchObject({ status: 'closed', closed_reason: 'expired_upstream', served: false });
    expect(rows.get('30000004')).toMatchObject({ status: 'live' });
    expect(rows.get('30000001')).toMatchObject({ status: 'live', missed_crawls: 0 });
  });

  it('closes an ad absent from a fresh snapshot as not_seen after the usual count of good crawls', async () => {
    // An operator reset (validators and state cleared) reloads the snapshot, which no longer has 30000003.
    await p.t.db.updateTable('crawl_targets').set({ site_state: null, etag: null }).where('id', '=', p.targetId).execute();
    p.server.set('/snapshot', { json: [ad('30000001', 'Socialsekreterare'), ad('30000004', 'Undersköterska')] });
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get('30000003')).toMatchObject({ status: 'live', missed_crawls: 1 });
    p.server.set('/stream', { json: [ad('30000005', 'Busschaufför')] });
    expect((await p.crawl()).outcome).toBe('fetched');
    expect((await p.rows()).get('30000003')).toMatchObject({ status: 'closed', closed_reason: 'not_seen' });
  });
});
