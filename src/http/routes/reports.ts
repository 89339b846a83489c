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
      {
        url: '/meta/freshness',
        operationId: 'getFreshness',
        tags: ['meta'],
         summary: 'Freshness and coverage report (costs no records)',
        description: 'How fresh the ledger is (verification ages of live rows, crawl health) and what it covers, from the report snapshot refreshed every few minutes. The same body as /public/freshness; costs no records.',
        surface: 'keyed',
        body: FreshnessReportSchema,
      },
      async () => body(ctx.reports, 'freshness'),
    );
  };
}

const SNAPSHOT = 'Read from the report snapshot (refreshed every few minutes; the body says when it was measured), cached by the keyless table.';
const PUBLIC_REPORTS: ReadonlyArray<{ path: string; name: ReportName; operationId: string; summary: string; description: string; schema: TSchema }> = [
  {
    path: '/freshness',
    name: 'freshness',
    operationId: 'getPublicFreshness',
    summary: 'Freshness report',
    description: `How fresh the ledger is: verification ages of live rows and crawl health. The same body as /v1/meta/freshness. ${SNAPSHOT}`,
    schema: FreshnessReportSchema,
  },
  {
    path: '/coverage',
    name: 'coverage',
    operationId: 'getCoverage',
    summary: 'Canonical coverage report',
    description: `What the ledger covers: live rows by source type and provider, and the share of rows with each field published. ${SNAPSHOT}`,
    schema: CoverageReportSchema,
  },
  {
    path: '/coverage/countries',
    name: 'coverage_countries',
    operationId: 'getCoverageCountries',
    summary: 'Coverage per country',
    description: `Live rows and field coverage per country. ${SNAPSHOT}`,
    schema: CountriesReportSchema,
  },
  {
    path: '/coverage/employers',
    name: 'coverage_employers',
    operationId: 'getCoverageEmployers',
    summary: 'Coverage per employer',
    description: `Live rows and field coverage per employer. ${SNAPSHOT}`,
    schema: EmployersReportSchema,
  },
  {
    path: '/stats',
    name: 'stats',
    operationId: 'getStats',
    summary: 'Summary of what /v1/jobs serves, with its own definitions',
    description: `Counts of what /v1/jobs serves, each with the definition it was counted by. ${SNAPSHOT}`,
    schema: StatsReportSchema,
  },
];

/** The keyless reports. */
export function keylessReportRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    for (const report of PUBLIC_REPORTS) {
      // Cache-Control comes from the keyless table (plugins/keyless-access.ts).
      servePlainRoute(
        app,
        { url: report.path, operationId: report.operationId, tags: ['public'], summary: report.summary, description: report.description, surface: 'keyless', body: report.schema },
        async () => body(ctx.reports, report.name),
      );
    }
  };
}
