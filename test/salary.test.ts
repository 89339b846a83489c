/**
 * `salary_min_annual_eur` on real Ashby rows, computed by hand from the ECB reference rates of
 * 2026-04-13 (the newest day in fixtures/fx/eurofxref-hist.zip: 1 EUR = 1.1684 USD = 4.6444 MYR =
 * 0.87058 GBP) and the spec's year (260 days, 2080 hours, 52 weeks).
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../src/domain/job.ts';
import { bearer, useCorpusApp } from './helpers/app.ts';

const USD_PER_EUR = 1.1684;
const MYR_PER_EUR = 4.6444;
const GBP_PER_EUR = 0.87058;

describe('salaries on the imported Ashby rows', () => {
  const ctx = useCorpusApp();

  async function served(sourcePostingId: string): Promise<Job> {
    const row = await ctx.t.db.selectFrom('jobs').select('id').where('provider_id', '=', 'ashby').where('source_posting_id', '=', sourcePostingId).executeTakeFirstOrThrow();
    const res = await ctx.app.inject({ method: 'GET', url: `/v1/jobs/${row.id}`, headers: bearer(ctx.key) });
    expect(res.statusCode).toBe(200);
    return res.json().data as Job;
  }

  it('converts a yearly USD salary (ramp, Customer Experience Agent: 48,000-70,000 USD a year)', async () => {
    const job = await served('d64609dd-c391-45a2-bfdb-c1bb34e8f93c');
    expect(job).toMatchObject({ salary_min: 48000, salary_max: 70000, salary_currency: 'USD', salary_period: 'annual', salary_source: 'structured' });
    expect(job.salary_min_annual_eur).toBeCloseTo(48000 / USD_PER_EUR, 2); // 41,081.82
    expect(job.salary_max_annual_eur).toBeCloseTo(70000 / USD_PER_EUR, 2); // 59,911.33
    expect(job.field_sources.salary).toBe('published');
  });

  it('converts a yearly GBP salary (almedia, Senior Director of Product: 150,000 GBP a year)', async () => {
    const job = await served('444aea76-6469-439b-b68e-9b5166eb0940');
    expect(job.salary_min_annual_eur).toBeCloseTo(150000 / GBP_PER_EUR, 2); // 172,299.89
  });

  it('converts a monthly MYR salary (bjakcareer, Talent Acquisition Executive: 3,500-6,000 MYR a month)', async () => {
    const job = await served('b1212e14-e0f6-4151-9cc9-0d286a164d41');
    expect(job).toMatchObject({ salary_min: 3500, salary_max: 6000, salary_currency: 'MYR', salary_period: 'monthly' });
    expect(job.salary_min_annual_eur).toBeCloseTo((3500 * 12) / MYR_PER_EUR, 2); // 9,043.15
    expect(job.salary_max_annual_eur).toBeCloseTo((6000 * 12) / MYR_PER_EUR, 2);
  });

  it('converts an hourly USD wage over 2,080 hours (Abridge, Full Stack Engineering Intern: 40 USD an hour)', async () => {
    const job = await served('5a73a97b-d2c4-4cf3-8fce-081b3cb92a3b');
    expect(job).toMatchObject({ salary_min: 40, salary_max: 40, salary_currency: 'USD', salary_period: 'hourly' });
    expect(job.salary_min_annual_eur).toBeCloseTo((40 * 2080) / USD_PER_EUR, 2); // 71,208.49
  });

  it('converts a weekly USD stipend over 52 weeks (decagon, Agent Software Engineer - Intern: 2,400 USD a week)', async () => {
    const job = await served('aa9c9d2a-aba9-429e-bf91-8303247fbcd6');
    expect(job.salary_period).toBe('weekly');
    expect(job.salary_min_annual_eur).toBeCloseTo((2400 * 52) / USD_PER_EUR, 2);
  });

  it('keeps a salary in a currency without a reference rate but never guesses its EUR value (sully-ai, 70,000 SAR a month)', async () => {
    const job = await served('4f2375ef-b50a-4c4d-a2d5-a7d44a589463');
    expect(job).toMatchObject({ salary_min: 70000, salary_currency: 'SAR', salary_period: 'monthly', salary_source: 'structured' });
    expect(job.salary_min_annual_eur).toBeNull();
  });

  it('gives rows without a salary no salary fields and a null annual figure', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/v1/jobs?provider=usajobs&limit=5', headers: bearer(ctx.key) });
    for (const job of res.json().data as Job[]) {
      expect(job.salary_min_annual_eur).toBeNull();
      expect(job.salary_max_annual_eur).toBeNull();
      expect(job.salary_source).toBeUndefined();
      expect(job.field_sources.salary).toBe('absent');
    }
  });
});
