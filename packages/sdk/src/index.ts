/**
 * `@jobledger/sdk`: a typed client for the jobledger API. See README.md for examples.
 */
export { createJobledgerClient, type ClientOptions, type FeedOptions, type FeedRoutes, type JobledgerClient, type PagedRoutes } from './client.ts';
export { JobledgerError, type ErrorBody } from './errors.ts';
export { readExport, type ExportOptions, type ExportReader, type ExportResult } from './export-reader.ts';
export { RETRYABLE_STATUSES, retryAfterMs, retryDelayMs, retryingFetch, type FetchLike, type RetryPolicy } from './retry.ts';
export { sync, type LocalCopy, type SyncSummary } from './sync.ts';
export type * from './types.ts';
export type { components, operations, paths } from './generated/openapi.ts';
