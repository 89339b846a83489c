/**
 * The bundled fixtures are what the demo and the tests rely on: every manifest target has its payload,
 * the Ashby boards carry enough listed postings for the demo (2,000+ live rows after the quality
 * gate), sizes stay within budget, licences sit next to the data, and createConnectors covers the
 * manifest's providers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConnectors } from './connectors/registry.ts';
import { FIXTURES, readFixture, readManifest, targetOf } from '../../test/helpers/fixtures.ts';

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('fixtures', () => {
  const manifest = readManifest();

  it('has a payload for every manifest target and a manifest target for every payload', () => {
    const payloads = ['ashby', 'greenhouse', 'lever', 'usajobs', 'remotive', 'himalayas', 'arbeitnow'].flatMap((provider) =>
      fs
        .readdirSync(path.join(FIXTURES, provider))
        .filter((f) => /\.json(\.gz)?$/.test(f))
        .map((f) => `${provider}:${f.replace(/\.json(\.gz)?$/, '')}`),
    );
    // Multi-document sources keep one folder per board: a board's first page or feed names it.
    const boards = [
      'recruitee:aikidosecurity',
      'workable:vasion',
      'workable:v3:halcyon-bio',
      'workday:gdit.wd5.myworkdayjobs.com/gdit/External_Career_Site',
      'smartrecruiters:LumenGrid',
      'personio:harbourline',
    ];
    for (const b of boards) expect(manifest.map((e) => `${e.provider}:${e.board}`)).toContain(b);
    expect(
      manifest
        .map((e) => `${e.provider}:${e.board}`)
        .filter((b) => !boards.includes(b))
        .sort(),
    ).toEqual(payloads.sort());
    for (const entry of manifest) if (entry.provider === 'ashby') expect(entry.company).toBeTruthy();
    for (const entry of manifest) if (entry.provider === 'usajobs') expect(entry.company).toBeUndefined();
  });

  it('carries at least 2,400 listed Ashby postings, two empty boards, and monthly, weekly and hourly salaries', () => {
    let listed = 0;
    let empty = 0;
    const intervals = new Set<string>();
    for (const entry of manifest.filter((e) => e.provider === 'ashby')) {
      const jobs = (readFixture('ashby', entry.board) as { jobs: { isListed?: boolean; compensation?: { summaryComponents?: { compensationType: string; interval: string }[] } }[] }).jobs;
      listed += jobs.filter((j) => j.isListed !== false).length;
      if (jobs.length === 0) empty++;
      for (const j of jobs) for (const c of j.compensation?.summaryComponents ?? []) if (c.compensationType === 'Salary') intervals.add(c.interval);
    }
    expect(listed).toBeGreaterThanOrEqual(2_400);
    expect(empty).toBe(2);
    expect([...intervals].sort()).toEqual(['1 HOUR', '1 MONTH', '1 WEEK', '1 YEAR']);
  });

  it('stays within the size budget: under 10 MB in all, no file over 8 MiB', () => {
    const sizes = filesUnder(FIXTURES).map((f) => fs.statSync(f).size);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(10_000_000);
    expect(Math.max(...sizes)).toBeLessThan(8 * 1024 * 1024);
  });

  it('keeps licence and origin notes next to the data', () => {
    expect(fs.readFileSync(path.join(FIXTURES, 'ashby', 'LICENSE'), 'utf8')).toContain('Copyright (c) 2025 stapply-ai');
    expect(fs.readFileSync(path.join(FIXTURES, 'usajobs', 'LICENSE'), 'utf8')).toContain('Copyright (c) 2025 Abigail Haddad');
    for (const readme of ['README.md', 'greenhouse/README.md', 'lever/README.md', 'remotive/README.md', 'himalayas/README.md', 'arbeitnow/README.md']) expect(fs.existsSync(path.join(FIXTURES, readme))).toBe(true);
  });

  it('has a connector for every provider of the manifest, building URL-encoded board URLs', () => {
    const connectors = createConnectors({ ashby: 'https://api.ashbyhq.com/', greenhouse: 'https://boards-api.greenhouse.io', lever: 'https://api.lever.co', usajobs: 'https://raw.example/raw_jobs', remotive: 'https://remotive.example', himalayas: 'https://himalayas.example', arbeitnow: 'https://arbeitnow.example', smartrecruiters: 'https://api.smartrecruiters.com', recruitee: 'https://{company}.recruitee.com', workable: 'https://apply.workable.com', personio: 'https://{company}.jobs.personio.de', workday: 'https://{host}', nav: 'https://nav.example', jobtech: 'https://jobtech.example', bundesagentur: 'https://ba.example', usajobs_api: 'https://data.usajobs.example' });
    for (const [id, connector] of Object.entries(connectors)) expect(connector.id).toBe(id);
    const synergy = manifest.find((e) => e.board === 'Synergy Pet Group')!;
    expect(connectors.ashby.boardUrl(targetOf(synergy))).toBe('https://api.ashbyhq.com/posting-api/job-board/Synergy%20Pet%20Group?includeCompensation=true');
    expect(connectors.usajobs.boardUrl(targetOf({ provider: 'usajobs', board: 'jobs_judicial_branch' }))).toBe('https://raw.example/raw_jobs/jobs_judicial_branch.json');
    for (const entry of manifest) expect(() => new URL(connectors[entry.provider].boardUrl(targetOf(entry)))).not.toThrow();
  });
});
