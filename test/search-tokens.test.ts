/**
 * Full-text tokens (issue 15 class 7; spec: GET /v1/jobs `title`, `q`, `description_contains`, no
 * stemming): words joined by `/`, `-`, `+` or `&` are found by each part, while `c++`, `c#` and
 * `.net` stay words of their own. Rows are written through the real ledger path and searched through
 * the real API, so the index (migration 014) and the query (store/job-queries.ts) are both exercised.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { bearer, useTestApp } from './helpers/app.ts';
import { handBuiltJob, writeHandBuiltRows } from './helpers/ledger-rows.ts';

const TITLES = [
  'Senior/Staff Engineer',
  'Front-end Developer',
  'Sales+Marketing Lead',
  'R&D Chemist',
  'C++ Developer',
  'C# Developer',
  '.NET Engineer',
  'ASP.NET Core Developer',
  'C Programmer (embedded)',
  'Network Technician',
];

describe('full-text tokens', () => {
  const ctx = useTestApp();

  beforeAll(async () => {
    await writeHandBuiltRows(
      ctx.t.db,
      TITLES.map((title, i) => ({
        job: handBuiltJob({
          sourcePostingId: `tokens-${i}`,
          title,
          hasDescription: true,
          descriptionHtml: `<p>Stack: ${title === 'C Programmer (embedded)' ? 'C and assembly' : 'Go/Rust and TypeScript'}</p>`,
          descriptionText: `Stack: ${title === 'C Programmer (embedded)' ? 'C and assembly' : 'Go/Rust and TypeScript'}`,
          fieldSources: { description: 'published' },
        }),
      })),
    );
  });

  async function titles(query: string): Promise<string[]> {
    const response = await ctx.app.inject({ url: `/v1/jobs?${query}`, headers: bearer(ctx.key) });
    expect(response.statusCode).toBe(200);
    return (response.json() as { data: Job[] }).data.map((j) => j.title).sort();
  }

  it('finds slash-, plus- and ampersand-joined words by each part', async () => {
    expect(await titles('title=senior')).toEqual(['Senior/Staff Engineer']);
    expect(await titles('title=staff')).toEqual(['Senior/Staff Engineer']);
    expect(await titles('title=marketing')).toEqual(['Sales+Marketing Lead']);
    expect(await titles('title=sales')).toEqual(['Sales+Marketing Lead']);
    expect(await titles('title=r%26d')).toEqual(['R&D Chemist']);
    expect(await titles(`q=${encodeURIComponent('senior/staff')}`)).toEqual(['Senior/Staff Engineer']);
    expect(await titles('description_contains=rust')).toHaveLength(TITLES.length - 1);
  });

  it('finds hyphen-joined words by each part and whole', async () => {
    expect(await titles('title=front')).toEqual(['Front-end Developer']);
    expect(await titles('title=front-end')).toEqual(['Front-end Developer']);
  });

  it('keeps c++, c# and .net apart from c and net', async () => {
    expect(await titles(`title=${encodeURIComponent('c++')}`)).toEqual(['C++ Developer']);
    expect(await titles(`title=${encodeURIComponent('C#')}`)).toEqual(['C# Developer']);
    expect(await titles(`title=${encodeURIComponent('.net')}`)).toEqual(['.NET Engineer', 'ASP.NET Core Developer']);
    expect(await titles('title=c')).toEqual(['C Programmer (embedded)']);
    expect(await titles('title=net')).toEqual([]);
    expect(await titles(`title_exclude=${encodeURIComponent('c++')}`)).not.toContain('C++ Developer');
  });
});
