/**
 * Board discovery and target import as an operator uses them: loopback careers pages embedding each
 * supported ATS the way its vendor's embed instructions do (links, iframes, script embeds, a redirect,
 * inline snippets, JSON-LD), read through the guarded fetcher; then `jobledger targets discover --yes`
 * and `jobledger targets import FILE.csv` as real processes against a real database.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverBoards } from '../src/ingest/board-discovery.ts';
import { createFetcher, type GuardedFetcher } from '../src/ingest/fetcher.ts';
import { testFetchConfig } from './helpers/corpus.ts';
import { createTestDatabase, type TestDatabase } from './helpers/database.ts';

const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../bin/jobledger.js');
const jobledger = (args: string[], env: Record<string, string>) =>
  run(process.execPath, [BIN, ...args], { env: { ...process.env, LOG_LEVEL: 'warn', CI: 'true', JOBLEDGER_FETCH_ALLOW: '127.0.0.1/32', JOBLEDGER_FETCH_RETRIES: '0', ...env }, timeout: 60_000 });

const page = (body: string, head = '') => `<!doctype html><html><head><title>Careers</title>${head}</head><body><h1>Join us</h1>${body}</body></html>`;

/** Each ATS embedded as its vendor documents it; the board each page must name. */
const PAGES: Record<string, { html: string; expect: [string, string][] }> = {
  '/ashby': { html: page('<a href="https://jobs.ashbyhq.com/acme-robotics">Open roles</a>'), expect: [['ashby', 'acme-robotics']] },
  '/greenhouse': {
    html: page('<div id="grnhse_app"></div><script src="https://boards.greenhouse.io/embed/job_board/js?for=acmerobotics"></script>'),
    expect: [['greenhouse', 'acmerobotics']],
  },
  '/greenhouse-iframe': { html: page('<iframe src="https://boards.greenhouse.io/embed/job_board?for=acmerobotics&amp;b=https%3A%2F%2Facme.example"></iframe>'), expect: [['greenhouse', 'acmerobotics']] },
  '/lever': { html: page('<a href="https://jobs.lever.co/acme/7f1c2b9e-1111-2222-3333-444455556666">Engineer</a><a href="https://jobs.lever.co/acme">All jobs</a>'), expect: [['lever', 'acme']] },
  '/smartrecruiters': { html: page('<a href="https://jobs.smartrecruiters.com/AcmeRoboticsGmbH">Jobs</a>'), expect: [['smartrecruiters', 'AcmeRoboticsGmbH']] },
  '/recruitee': { html: page('<script>window.rtapp = { url: "https://acmerobotics.recruitee.com/api/offers/" };</script>'), expect: [['recruitee', 'acmerobotics']] },
  '/workable': { html: page('<script src="https://apply.workable.com/embed/v1/accounts/acme/jobs.js"></script><a href="https://apply.workable.com/acme/">Careers</a>'), expect: [['workable', 'acme']] },
  // A custom careers page reading the hosted careers page's v3 API itself (and linking the hosted page).
  '/workable-v3': {
    html: page(
      '<ul id="jobs"></ul><a href="https://apply.workable.com/halcyon-bio/">All openings</a>' +
        '<script>fetch("https://apply.workable.com/api/v3/accounts/halcyon-bio/jobs", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }).then((r) => r.json()).then(show);</script>',
    ),
    expect: [['workable', 'v3:halcyon-bio']],
  },
  '/personio': { html: page('<iframe src="https://acme-robotics.jobs.personio.de/?language=de"></iframe>'), expect: [['personio', 'acme-robotics']] },
  '/workday': { html: page('<a href="https://acme.wd5.myworkdayjobs.com/en-US/Acme_Careers">Search jobs</a>'), expect: [['workday', 'acme.wd5.myworkdayjobs.com/acme/Acme_Careers']] },
  '/jsonld': {
    html: page('<p>Robotics engineer</p>', '<script type="application/ld+json">{"@context":"https://schema.org","@type":"JobPosting","title":"Robotics Engineer","hiringOrganization":{"name":"Acme"}}</script>'),
    expect: [['career_site', '/jsonld']],
  },
  '/nothing': { html: page('<a href="/about">About us</a>'), expect: [] },
};

describe('targets discover', () => {
  let server: http.Server;
  let base = '';
  let fetcher: GuardedFetcher;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/jobs') {
        res.writeHead(302, { location: '/greenhouse' });
        return res.end();
      }
      const p = PAGES[req.url ?? ''];
      if (!p) {
        res.writeHead(404);
        return res.end('not found');
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(p.html);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fetcher = createFetcher(testFetchConfig({ retries: 0 }));
  });
  afterAll(async () => {
    await fetcher?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const [pathName, expected] of Object.entries(PAGES)) {
    it(`names the board behind a careers page embedding ${pathName.slice(1)}`, async () => {
      const found = await discoverBoards(fetcher, `${base}${pathName}`);
      expect(found.boards.map((b) => [b.provider, b.board.replace(base, '')])).toEqual(expected.expect);
    });
  }

  it('follows a redirect to the page that embeds the board', async () => {
    const found = await discoverBoards(fetcher, `${base}/jobs`);
    expect(found.pageUrl).toBe(`${base}/greenhouse`);
    expect(found.boards.map((b) => b.board)).toEqual(['acmerobotics']);
  });

  it('names the board of an ATS URL given directly, without fetching it', async () => {
    expect((await discoverBoards(fetcher, 'https://job-boards.greenhouse.io/anthropic')).boards.map((b) => [b.provider, b.board])).toEqual([['greenhouse', 'anthropic']]);
  });

  describe('through the command, against a database', () => {
    let t: TestDatabase;
    let dir: string;
    beforeAll(async () => {
      t = await createTestDatabase();
      dir = await mkdtemp(path.join(tmpdir(), 'jobledger-targets-'));
    });
    afterAll(async () => {
      await t?.drop();
      await rm(dir, { recursive: true, force: true });
    });
    const targetIds = async () => (await t.db.selectFrom('crawl_targets').select(['id', 'company_name', 'company_domain']).orderBy('id').execute());

    it('prints what it would add, then adds it with --yes', async () => {
      const dry = await jobledger(['targets', 'discover', `${base}/lever`], { DATABASE_URL: t.url });
      expect(dry.stdout).toContain('would add lever:acme');
      expect(await targetIds()).toEqual([]);
      const added = await jobledger(['targets', 'discover', `${base}/lever`, '--yes', '--company', 'Acme'], { DATABASE_URL: t.url });
      expect(added.stdout).toContain('added lever:acme');
      expect(await targetIds()).toEqual([{ id: 'lever:acme', company_name: 'Acme', company_domain: null }]);
      await expect(jobledger(['targets', 'discover', `${base}/nothing`], { DATABASE_URL: t.url })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('no ATS board') });
    }, 120_000);

    it('imports a CSV: adds the good rows once, reports each refused row, and a second import adds nothing', async () => {
      const file = path.join(dir, 'targets.csv');
      await writeFile(
        file,
        [
          '\uFEFFprovider,board,company,domain',
          'greenhouse,acmerobotics,"Acme Robotics, Inc.",acme.example',
          'ashby,1password,1Password,1password.com',
          'career_site,https://careers.example.org/jobs#top,Example Org,',
          'nosuchats,acme,Acme,',
          'lever,,Nobody,',
          'lever,has space,Spacey,',
          'greenhouse,acmerobotics2,Acme,not a domain',
          'career_site,ftp://example.org/jobs,Example,',
          'greenhouse,acmerobotics,Acme again,',
          'lever,acme,Acme,acme.example',
        ].join('\n'),
      );
      const first = await jobledger(['targets', 'import', file], { DATABASE_URL: t.url }).catch((e: { code: number; stdout: string }) => e);
      expect((first as { code?: number }).code).toBe(2);
      const out = first.stdout;
      expect(out).toContain('added greenhouse:acmerobotics');
      expect(out).toContain('added ashby:1password');
      expect(out).toContain('added career_site:https://careers.example.org/jobs');
      expect(out).toContain('refused line 5: unknown provider "nosuchats"');
      expect(out).toContain('refused line 6: no board');
      expect(out).toContain('refused line 7: board "has space" is not a board token');
      expect(out).toContain('refused line 8: domain "not a domain" is not a domain name');
      expect(out).toContain('refused line 9: board "ftp://example.org/jobs" is not an http(s) careers-page URL');
      expect(out).toContain('3 added, 2 already present, 5 refused');
      const rows = await targetIds();
      expect(rows).toEqual([
        { id: 'ashby:1password', company_name: '1Password', company_domain: '1password.com' },
        { id: 'career_site:https://careers.example.org/jobs', company_name: 'Example Org', company_domain: 'example.org' },
        { id: 'greenhouse:acmerobotics', company_name: 'Acme Robotics, Inc.', company_domain: 'acme.example' },
        { id: 'lever:acme', company_name: 'Acme', company_domain: null },
      ]);
      const again = await jobledger(['targets', 'import', file], { DATABASE_URL: t.url }).catch((e: { stdout: string }) => e);
      expect(again.stdout).toContain('0 added, 5 already present, 5 refused');
      expect(await targetIds()).toEqual(rows);
    }, 120_000);
  });
});
