/**
 * Named shapes of the jobledger API, taken from the generated OpenAPI types (generated/openapi.ts) so
 * that they follow the served contract.
 */
import type { components, operations } from './generated/openapi.ts';

/** A job vacancy with per-field provenance (spec: Resources › Job). */
export type Job = components['schemas']['Job'];
/** An employer of the directory (spec: Resources › Company). */
export type Company = components['schemas']['Company'];

type QueryOf<O extends keyof operations> = NonNullable<operations[O]['parameters']['query']>;
type Ok<O extends keyof operations> = operations[O]['responses'] extends { 200: { content: { 'application/json': infer B } } } ? B : never;

/** Query of `GET /v1/jobs`: the shared filters, `limit`, `cursor`, `status`, `quality`, `include_poster_type`. */
export type JobsQuery = QueryOf<'listJobs'>;
/** Query of `GET /v1/jobs/closed`. */
export type ClosedJobsQuery = QueryOf<'listClosedJobs'>;
/** Query of `GET /v1/companies`. */
export type CompaniesQuery = QueryOf<'listCompanies'>;
/** Query of `GET /v1/export` (without `after`, which the export reader manages). */
export type ExportQuery = Omit<QueryOf<'exportJobs'>, 'after'>;

/** A page of `GET /v1/jobs`. */
export type JobsPage = Ok<'listJobs'>;
/** A page of `GET /v1/jobs/closed`. */
export type ClosedJobsPage = Ok<'listClosedJobs'>;
/** A page of `GET /v1/companies`. */
export type CompaniesPage = Ok<'listCompanies'>;
/** A page of `GET /v1/changes`. */
export type ChangesPage = Ok<'listChanges'>;
/** One item of the delta feed: `change` (created, updated, delisted, withdrawn), `id`, `changed_at`, and `job` on created/updated. */
export type ChangeItem = ChangesPage['data'][number];
/** A page of `GET /v1/jobs/expired`. */
export type ExpiredPage = Ok<'listExpiredJobs'>;
/** One closure of `GET /v1/jobs/expired`: `id`, `closed_at`, `closed_reason`. */
export type ExpiredItem = ExpiredPage['data'][number];
/** `GET /v1/me`. */
export type Me = Ok<'getMe'>;
