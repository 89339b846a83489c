/**
 * The Greenhouse connector on the hand-written boards (fixtures/greenhouse, real Job Board API shape),
 * fetched from the loopback replay server.
 */
import { describe, expect, it } from 'vitest';
import type { SourcePosting } from '../../domain/posting.ts';
import { readFixture, useConnectorReplay } from '../../../test/helpers/fixtures.ts';
import { createGreenhouseConnector, unescapeHtmlOnce } from './greenhouse.ts';

const replay = useConnectorReplay('greenhouse', createGreenhouseConnector);
const { target, postingsOf } = replay;

const byId = (postings: SourcePosting[], id: string) => postings.find((p) => p.sourcePostingId === id);

describe('Greenhouse connector', () => {
  it('reads both boards on the real path', async () => {
    expect(replay.connector.boardUrl(target('northwindrobotics'))).toBe(`${replay.loop.replay.url}/v1/boards/northwindrobotics/jobs?content=true`);
    expect((await postingsOf('northwindrobotics')).length).toBe(6);
    expect((await postingsOf('brightharbor')).length).toBe(6);
  });

  it('maps northwindrobotics 7104331004 field by field, unescaping content once', async () => {
    const posting = byId(await postingsOf('northwindrobotics', { companyName: 'ignored', companyDomain: 'northwind.example' }), '7104331004');
    const raw = (readFixture('greenhouse', 'northwindrobotics') as { jobs: { id: number; content: string }[] }).jobs.find((j) => j.id === 7104331004)!;
    expect(posting).toEqual({
      sourcePostingId: '7104331004',
      title: 'Senior Robotics Software Engineer, Motion Planning',
      company: { name: 'Northwind Robotics', domain: 'northwind.example' },
      location: 'Hybrid - Munich',
      locations: [{ text: 'Hybrid - Munich' }, { text: 'Munich, Bavaria, Germany' }],
      postedAt: '2026-10-02T07:14:27.000Z',
      descriptionHtml: unescapeHtmlOnce(raw.content),
      applyUrl: 'https://job-boards.greenhouse.io/northwindrobotics/jobs/7104331004',
      postingUrl: 'https://job-boards.greenhouse.io/northwindrobotics/jobs/7104331004',
      hints: { department: 'Engineering' },
    });
    expect(raw.content).toContain('&lt;h3&gt;What you will do&lt;/h3&gt;');
    expect(posting?.descriptionHtml).toContain('<h3>What you will do</h3>');
    expect(posting?.descriptionHtml).toContain('Our R&amp;D teams');
    expect(posting?.descriptionHtml).toContain('background&nbsp;&mdash;');
    expect(posting?.descriptionHtml).toContain('<div class="content-intro">');
  });

  it('sets no remote flag, employment type or salary (Greenhouse has none)', async () => {
    for (const p of await postingsOf('brightharbor')) {
      expect(p).not.toHaveProperty('remoteFlag');
      expect(p).not.toHaveProperty('employmentType');
      expect(p).not.toHaveProperty('salary');
      expect(p.company.name).toBe('Bright Harbor Health');
    }
  });

  it('leaves the location of the open application absent and keeps escaped text escaped', async () => {
    const open = byId(await postingsOf('northwindrobotics'), '7104460004')!;
    expect(open.title).toBe('Open Application');
    expect(open).not.toHaveProperty('location');
    expect(open.locations).toEqual([]);
    expect(open).not.toHaveProperty('hints');
    expect(open.descriptionHtml).toContain('Don&#39;t see the right role?');
  });

  it('does not repeat an office that equals the location, takes the first department, and converts offsets to UTC', async () => {
    const postings = await postingsOf('brightharbor');
    expect(byId(postings, '6650012004')?.locations).toEqual([{ text: 'Toronto, Ontario, Canada' }]);
    expect(byId(postings, '6650047004')?.hints).toEqual({ department: 'Engineering' });
    expect(byId(postings, '6650102004')?.postedAt).toBe('2026-10-19T05:15:00.000Z');
  });

  it('falls back to the target name when company_name is missing, and refuses wrong shapes', async () => {
    const raw = (readFixture('greenhouse', 'brightharbor') as { jobs: Record<string, unknown>[] }).jobs[0]!;
    replay.loop.replay.override('/v1/boards/other/jobs', { json: { jobs: [{ ...raw, company_name: null }, { ...raw, id: null }], meta: { total: 2 } } });
    const outcome = await replay.connector.crawl(target('other', { companyName: 'Other Co' }), replay.loop.fetcher);
    expect(outcome).toMatchObject({ kind: 'fetched', skipped: 1 });
    if (outcome.kind === 'fetched') expect(outcome.postings[0]?.company).toEqual({ name: 'Other Co' });
    replay.loop.replay.override('/v1/boards/other/jobs', { json: [] });
    await expect(replay.connector.crawl(target('other'), replay.loop.fetcher)).rejects.toMatchObject({ kind: 'malformed' });
  });
});

describe('unescapeHtmlOnce', () => {
  it('undoes exactly one layer of escaping', () => {
    expect(unescapeHtmlOnce('&lt;p class=&quot;x&quot;&gt;R&amp;amp;D &amp;lt;3&lt;/p&gt;')).toBe('<p class="x">R&amp;D &lt;3</p>');
    expect(unescapeHtmlOnce('it&#39;s &#x27;quoted&#x27; &apos;too&apos;')).toBe("it's 'quoted' 'too'");
    expect(unescapeHtmlOnce('&amp;nbsp; &nbsp; &rsquo;')).toBe('&nbsp; &nbsp; &rsquo;');
    expect(unescapeHtmlOnce('&#0; &#xD800; &#1114112;')).toBe('&#0; &#xD800; &#1114112;');
  });
});
