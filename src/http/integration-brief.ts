/**
 * The plain-text integration brief served at GET /public/ai-prompt (spec: "plain-text integration
 * brief"; its content is not shown). It is generated from the live OpenAPI document and the latest
 * coverage snapshot, so it can never drift from the contract or hard-code a count (spec: item 9).
 */

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
}
interface OpenApiOperation {
  summary?: string;
  security?: unknown[];
  parameters?: OpenApiParameter[];
  responses?: Record<string, unknown>;
}
interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
}

function numberOf(data: Record<string, unknown>, key: string): string {
  const value = data[key];
  return typeof value === 'number' ? value.toLocaleString('en-US') : 'unknown';
}

/** Render the brief. `coverage` is the coverage snapshot's body; `measuredAt` its instant. */
export function integrationBrief(doc: OpenApiDocument, coverage: Record<string, unknown>, measuredAt: Date): string {
  const lines: string[] = [];
  const push = (...l: string[]) => lines.push(...l);
  push(
    `# Integrating with ${doc.info.title} (contract version ${doc.info.version})`,
    '',
    'A read-only HTTP/JSON API of employer-direct job vacancies. Every row comes from an employer applicant-tracking system, a careers page, a public employment agency or a direct submission; aggregator and job-board inventory is never served. Each row says where its fields came from (field_sources: published, inferred or absent), when it entered the ledger (first_seen_at) and when it was last confirmed at its source (last_verified_at). Salaries are only what the source stated or what the advert text says (labelled inferred), never an estimate. apply_url always points at the employer.',
    '',
    `## Counts (measured ${measuredAt.toISOString()}; read them at run time, never hard-code them)`,
    `- live listings: ${numberOf(coverage, 'live_listings')}`,
    `- withheld listings (present, not served): ${numberOf(coverage, 'withheld_listings')}`,
    `- closed listings (kept with closed_at and closed_reason): ${numberOf(coverage, 'closed_listings')}`,
    `- employers with live listings: ${numberOf(coverage, 'employers')}`,
    `- countries with live listings: ${numberOf(coverage, 'countries')}`,
    '',
    '## Authentication',
    '- /v1 endpoints need the header "Authorization: Bearer <API_KEY>" (no query parameter, no X-Api-Key).',
    '- /public endpoints need nothing: a keyless, read-only mirror, at most 50 rows per request, no paging, cached, CORS open.',
    '- A missing, unknown, revoked or expired key is 401 unauthorized; a plan without the needed entitlement is 403 upgrade_required with X-SVC-Required-Feature.',
    '',
    '## Rules that matter',
    '- Page /v1/jobs by following next_cursor (pass it back verbatim) until has_more is false; never guess an offset.',
    '- Parameter names are case-sensitive, values are not; unknown parameters are ignored; a bad vocabulary value is 422 with a message naming it; enumerate vocabularies at run time from /v1/meta/facets or /public/facets.',
    '- Optional fields are omitted when empty; clients must parse permissively and treat enumerations as open.',
    '- Records are metered per row returned (one per job, company or export line); X-RateLimit-Records-Remaining shows what is left. 402 record_quota_exhausted is not a throttle.',
    '- Retry only 429 and 503, honouring Retry-After with jitter, 3 to 5 attempts. Never retry 401, 402, 403, 422 or 500.',
    '- /v1/export streams NDJSON in id order and ends with a control line: {"complete":true,...} or {"error":...,"after":"<id>"}; resume with after=<last id>.',
    '- Company slugs can change: a retired slug answers 301 with Location; prefer the company domain as a stable key.',
    '- Where listings are shown publicly, credit the service visibly with a link to its website; when a row carries attribution, show it and link to canonical_url.',
    '',
    '## Endpoints (from the live OpenAPI document: /public/openapi.json)',
  );
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const keyed = Array.isArray(op.security) && op.security.length > 0;
      push('', `${method.toUpperCase()} ${path}${keyed ? '  (API key)' : '  (keyless)'}`);
      if (op.summary) push(`  ${op.summary}`);
      for (const p of op.parameters ?? []) {
        push(`  - ${p.name} (${p.in}${p.required ? ', required' : ''})${p.description ? `: ${p.description}` : ''}`);
      }
      const statuses = Object.keys(op.responses ?? {}).join(', ');
      if (statuses) push(`  responses: ${statuses}`);
    }
  }
  push('', 'Errors are always JSON: {"error": "<stable code>", "message": "<human text>", "docs": "<link>"}. Branch on error, not on message.', '');
  return lines.join('\n');
}
