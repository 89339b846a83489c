/**
 * The SmartRecruiters connector on the hand-written LumenGrid board (fixtures/smartrecruiters, in the
 * documented Posting API shape), fetched from the loopback replay server on the real API's paths.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { readFixture, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createSmartRecruitersConnector } from './smartrecruiters.ts';

const replay = useConnectorReplay('smartrecruiters', createSmartRecruitersConnector);
const { target } = replay;
const list = readFixture('smartrecruiters', 'LumenGrid') as { content: Record<string, unknown>[] };
const details = (id: string) => readFixture('smartrecruiters', `LumenGrid/${id}`) as Record<string, unknown>;

beforeEach(() => {
  replay.loop.replay.requests.length = 0;
});

describe('SmartRecruiters connector', () => {
  it('reads the list, then each posting\'s details, and maps the hybrid Hamburg posting field by field', async () => {
    const outcome = await replay.fetched('LumenGrid');
    expect(replay.loop.replay.requests[0]!.path).toBe('/v1/companies/LumenGrid/postings?offset=0&limit=100');
    expect(replay.loop.replay.requests.slice(1).map((r) => r.path).sort()).toEqual(list.content.map((p) => `/v1/companies/LumenGrid/postings/${String(p['id'])}`).sort());
    expect(outcome.etag).toMatch(/^"/);
    const sections = (details('744000012345001')['jobAd'] as { sections: Record<string, { title: string; text: string }> }).sections;
    expect(outcome.postings[0]).toEqual({
      sourcePostingId: '744000012345001',
      title: 'Grid Integration Engineer (Battery Storage)',
      company: { name: 'LumenGrid Energy' },
      location: 'Hamburg, Hamburg, DE',
      locations: [{ text: 'Hamburg, Hamburg, DE', country: 'DE', region: 'Hamburg', city: 'Hamburg' }],
      remoteFlag: 'hybrid',
      employmentType: 'Full-time',
      postedAt: '2026-10-02T08:15:00.000Z',
      descriptionHtml: ['companyDescription', 'jobDescription', 'qualifications', 'additionalInformation'].map((k) => `<h3>${sections[k]!.title}</h3>${sections[k]!.text}`).join(''),
      applyUrl: 'https://jobs.smartrecruiters.com/LumenGrid/744000012345001',
      postingUrl: 'https://jobs.smartrecruiters.com/LumenGrid/744000012345001',
      hints: { department: 'Engineering', team: 'Engineering' },
    });
    expect(outcome.postings.map((p) => p.remoteFlag)).toEqual(['hybrid', 'not_remote', 'remote', 'not_remote']);
  });

  it('follows offset pages until totalFound and keeps no validators for a board of several pages', async () => {
    // LumenGrid-paged.json holds 2 of totalFound 3 postings; LumenGrid-paged.offset-2.json the third.
    const ids = list.content.slice(0, 3).map((p) => String(p['id']));
    for (const id of ids) replay.loop.replay.override(`/v1/companies/LumenGrid-paged/postings/${id}`, { json: details(id) });
    const outcome = await replay.fetched('LumenGrid-paged');
    expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual(ids);
    expect(replay.loop.replay.requests.filter((r) => r.path.includes('?')).map((r) => r.path)).toEqual([
      '/v1/companies/LumenGrid-paged/postings?offset=0&limit=100',
      '/v1/companies/LumenGrid-paged/postings?offset=2&limit=100',
    ]);
    // The first page's validators do not speak for the second page: none are kept.
    expect(outcome).not.toHaveProperty('etag');
    expect(outcome).not.toHaveProperty('lastModified');
  });

  it('returns postings whose details answer 404 or say active: false as gone', async () => {
    replay.loop.replay.override('/v1/companies/LumenGrid/postings/744000012345002', { status: 404, body: '{}' });
    replay.loop.replay.override('/v1/companies/LumenGrid/postings/744000012345003', { json: { ...details('744000012345003'), active: false } });
    try {
      const outcome = await replay.connector.crawl(target('LumenGrid'), replay.loop.fetcher);
      expect(outcome).toMatchObject({ kind: 'fetched' });
      if (outcome.kind !== 'fetched') return;
      expect(outcome.gone?.sort()).toEqual(['744000012345002', '744000012345003']);
      expect(outcome.postings.map((p) => p.sourcePostingId)).toEqual(['744000012345001', '744000012345004']);
    } finally {
      replay.loop.replay.override('/v1/companies/LumenGrid/postings/744000012345002', null);
      replay.loop.replay.override('/v1/companies/LumenGrid/postings/744000012345003', null);
    }
  });
});
