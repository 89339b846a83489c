/**
 * The reports, served from their snapshots (spec: GET /v1/meta/freshness, GET /public/freshness,
 * /public/coverage, /public/coverage/countries, /public/coverage/employers, /public/stats).
 */
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import {
  CountriesReportSchema,
  CoverageReportSchema,
  EmployersReportSchema,
  FreshnessReportSchema,
  StatsReportSchema,
} from '../../reports/report-schemas.ts';
import type { ReportName, ReportReader } from '../../reports/snapshots.ts';
import type { AppContext } from '../context.ts';
import { servePlainRoute } from '../route.ts';

/** The served body of a report: the snapshot with its age (and, for freshness, generated_at). */
async function body(reports: ReportReader, name: ReportName): Promise<{ data: Record<string, unknown> }> {
  const now = new Date();
  const report = await reports.read(name, now);
  const data: Record<string, unknown> = { ...report.data, measured_at: report.measuredAt.toISOString(), age_seconds: report.ageSeconds, stale: report.stale };
  if (name === 'freshness') data.generated_at = now.toISOString();
  return { data };
}

/** `/v1/meta/freshness`; register inside the authenticated scope. */
export function keyedReportRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // A report's body is its snapshot's data, checked against the schema as it is sent.
    servePlainRoute<TSchema>(
      app,
      { url: '/meta/freshness', operationId: 'getFreshness', tags: ['meta'], summary: 'Freshness and coverage report (costs no records)', surface: 'keyed', body: FreshnessReportSchema },
      async () => body(ctx.reports, 'freshness'),
    );
  };
}

const PUBLIC_REPORTS: ReadonlyArray<{ path: string; name: ReportName; operationId: string; summary: string; schema: TSchema }> = [
  { path: '/freshness', name: 'freshness', operationId: 'getPublicFreshness', summary: 'Freshness report', schema: FreshnessReportSchema },
  { path: '/coverage', name: 'coverage', operationId: 'getCoverage', summary: 'Canonical coverage report', schema: CoverageReportSchema },
  { path: '/coverage/countries', name: 'coverage_countries', operationId: 'getCoverageCountries', summary: 'Coverage per country', schema: CountriesReportSchema },
  { path: '/coverage/employers', name: 'coverage_employers', operationId: 'getCoverageEmployers', summary: 'Coverage per employer', schema: EmployersReportSchema },
  { path: '/stats', name: 'stats', operationId: 'getStats', summary: 'Summary of what /v1/jobs serves, with its own definitions', schema: StatsReportSchema },
];

/** The keyless reports. */
export function keylessReportRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    for (const report of PUBLIC_REPORTS) {
      // Cache-Control comes from the keyless table (plugins/keyless-access.ts).
      servePlainRoute(
        app,
        { url: report.path, operationId: report.operationId, tags: ['public'], summary: report.summary, surface: 'keyless', body: report.schema },
        async () => body(ctx.reports, report.name),
      );
    }
  };
}
