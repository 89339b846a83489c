/**
 * The employer directory on both surfaces (spec: GET /v1/companies, GET /v1/companies/{slug},
 * GET /public/companies, GET /public/companies/{slug}).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CompanyEnvelopeSchema, CompanyPageSchema, parseCompanyQuery, type CompanyPage } from '../../domain/company.ts';
import { CursorError, decodeCursor, encodeCursor, queryFingerprint } from '../../domain/cursor.ts';
import { ApiError } from '../../domain/errors.ts';
import type { RawQuery } from '../../domain/listing-filter.ts';
import { currentSlugFor, findCompany, listCompanies, type CompanyPosition } from '../../store/company-directory.ts';
import { toCompany } from '../presenters/company.ts';
import type { AppContext } from '../context.ts';
import { errorResponses } from '../schemas.ts';
import { KEYLESS_MAX_LIMIT } from './jobs.ts';

const param = (description: string) => Type.Optional(Type.String({ description }));

const directoryFilters = {
  country: param('Comma list of ISO-3166 alpha-2 codes: the company country (stated, else the most frequent country of its live rows).'),
  org_type: param('Comma list of organisation types, any case (e.g. government).'),
  source_type: param('Comma list: ats, career_site, public_agency (aggregator and agency are reserved and match nothing); legacy employer_ats, government, direct. Unknown: 422 bad_source_type.'),
  has_website: param('true: only companies whose own-name website was verified; false: only those without one.'),
  include_discovered: param('true also lists discovered companies (open_roles 0, seen hiring on a discovery-only source).'),
  q: param('Case-insensitive part of the company name, or an exact slug or domain.'),
};

const keyedQuery = Type.Object(
  {
    ...directoryFilters,
    limit: param('1 to 200, default 25; clamped to the plan maximum; a non-numeric value uses the default.'),
    offset: param('0 to 100000, default 0. Above: 422 bad_offset. Ignored when cursor is sent.'),
    cursor: param('The previous page\'s next_cursor, verbatim; overrides offset. Malformed or from another query: 422 bad_cursor.'),
  },
  { additionalProperties: true },
);

const keylessQuery = Type.Object(
  {
    ...directoryFilters,
    limit: param('1 to 50, default 25; larger values are clamped to 50.'),
    offset: param('Not available without a key: a value above 0 is 402 key_required_to_page.'),
    cursor: param('Not available without a key: 402 key_required_to_page.'),
  },
  { additionalProperties: true },
);

const SlugParams = Type.Object({ slug: Type.String({ description: 'Company slug (any case).' }) });

const MovedResponse = Type.Null({
  description: 'Retired slug: Location names the current one. Never cached.',
  headers: {
    Location: { type: 'string', description: 'Path of the company under its current slug.' },
    'Cache-Control': { type: 'string', description: 'no-store' },
  },
});

function decodePosition(secret: string, fingerprint: string, cursor: string): { after: CompanyPosition; offset: number } {
  try {
    const position = decodeCursor(secret, fingerprint, cursor);
    const parsed = JSON.parse(position.key) as unknown;
    if (
      Array.isArray(parsed) &&
      parsed.length === 4 &&
      Number.isInteger(parsed[0]) &&
      typeof parsed[1] === 'string' &&
      typeof parsed[2] === 'string' &&
      Number.isInteger(parsed[3])
    ) {
      return { after: { rank: parsed[0] as number, name: parsed[1], slug: parsed[2] }, offset: parsed[3] as number };
    }
    throw new CursorError('the cursor is malformed');
  } catch (error) {
    if (error instanceof CursorError || error instanceof SyntaxError) {
      throw new ApiError('bad_cursor', `The cursor is not valid here: ${(error as Error).message}.`);
    }
    throw error;
  }
}

function notFound(slug: string, keyless: boolean): ApiError {
  const where = keyless ? '/public/companies?q=<name>' : '/v1/companies?q=<name>';
  return new ApiError('not_found', `No company has the slug "${slug}". Slugs can change: re-resolve with ${where}.`);
}

/** 301 to the current slug, never cached (spec: "answers 301 with the current slug in Location, never cached"). */
function moved(reply: FastifyReply, prefix: string, slug: string): FastifyReply {
  return reply
    .code(301)
    .header('Location', `${prefix}/companies/${encodeURIComponent(slug)}`)
    .header('Cache-Control', 'no-store')
    .send();
}

/** `/v1/companies` and `/v1/companies/{slug}`; register inside the authenticated scope. */
export function keyedCompanyRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();

    r.get(
      '/companies',
      {
        schema: {
          operationId: 'listCompanies',
          tags: ['companies'],
          summary: 'Employer directory, most open roles first',
          description:
            'Ordering: GREATEST(open_roles, own_site_roles) descending, then name, then slug (total). open_roles reconciles exactly with GET /v1/jobs?company=<slug>. One record per company returned.',
          security: [{ bearerAuth: [] }],
          querystring: keyedQuery,
          response: { 200: CompanyPageSchema, ...errorResponses(401, 402, 422, 429, 500, 503) },
        },
      },
      async (request): Promise<CompanyPage> => {
        // A country-locked key sees the directory of its country's rows (spec: Authentication item 9).
        const parsed = parseCompanyQuery(request.query as RawQuery, {
          maxLimit: request.apiKey!.plan.max_page_size,
          keyless: false,
          countryLock: request.apiKey!.key.country_lock ?? undefined,
        });
        const fingerprint = queryFingerprint({ endpoint: '/v1/companies', filter: parsed.filter });
        const position = parsed.cursor ? decodePosition(ctx.cursorSecret, fingerprint, parsed.cursor) : undefined;
        const offset = position ? position.offset : parsed.offset;
        const granted = await request.recordMeter.reserve(parsed.limit);
        const page = await listCompanies(ctx.db, parsed.filter, { limit: granted, offset, after: position?.after });
        await request.recordMeter.settle(page.rows.length);
        const last = page.rows[page.rows.length - 1];
        const next =
          page.hasMore && last
            ? encodeCursor(ctx.cursorSecret, fingerprint, { key: JSON.stringify([last.rank, last.name, last.slug, offset + page.rows.length]), id: last.id })
            : null;
        return { data: page.rows.map(toCompany), has_more: page.hasMore, limit: parsed.limit, offset, next_cursor: next };
      },
    );

    r.get(
      '/companies/:slug',
      {
        schema: {
          operationId: 'getCompany',
          tags: ['companies'],
          summary: 'One employer by slug; a retired slug answers 301',
          security: [{ bearerAuth: [] }],
          params: SlugParams,
          response: { 200: CompanyEnvelopeSchema, 301: MovedResponse, ...errorResponses(401, 402, 404, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        // A company row costs one record (spec: Metering rules 2); a redirect or a miss costs none.
        await request.recordMeter.reserve(1);
        // A country-locked key finds only employers with rows in its country, by any slug.
        const countryLock = request.apiKey!.key.country_lock ?? undefined;
        const row = await findCompany(ctx.db, request.params.slug, { countryLock });
        await request.recordMeter.settle(row ? 1 : 0);
        if (!row) {
          const current = await currentSlugFor(ctx.db, request.params.slug);
          if (current && (!countryLock || (await findCompany(ctx.db, current, { countryLock })))) return moved(reply, '/v1', current);
          throw notFound(request.params.slug, false);
        }
        return { data: toCompany(row) };
      },
    );
  };
}

/** `/public/companies` and `/public/companies/{slug}`: the same rows, one page of at most 50, cached. */
export function keylessCompanyRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const r = app.withTypeProvider<TypeBoxTypeProvider>();

    r.get(
      '/companies',
      {
        schema: {
          operationId: 'listPublicCompanies',
          tags: ['public'],
          summary: 'Keyless employer directory: the first page only, at most 50 rows',
          security: [],
          querystring: keylessQuery,
          response: { 200: CompanyPageSchema, ...errorResponses(402, 422, 429, 500, 503) },
        },
      },
      async (request): Promise<CompanyPage> => {
        const query = request.query as RawQuery;
        const parsed = parseCompanyQuery(query, { maxLimit: KEYLESS_MAX_LIMIT, keyless: true });
        if (parsed.cursor !== undefined || parsed.offset > 0) {
          throw new ApiError('key_required_to_page', 'Paging needs an API key: send cursor or offset to /v1/companies with "Authorization: Bearer <API_KEY>".');
        }
        const page = await listCompanies(ctx.db, parsed.filter, { limit: parsed.limit, offset: 0 });
        // The keyless surface does not page: has_more is false and next_cursor null by definition.
        return { data: page.rows.map(toCompany), has_more: false, limit: parsed.limit, offset: 0, next_cursor: null };
      },
    );

    r.get(
      '/companies/:slug',
      {
        schema: {
          operationId: 'getPublicCompany',
          tags: ['public'],
          summary: 'One employer by slug; a retired slug answers 301',
          security: [],
          params: SlugParams,
          response: { 200: CompanyEnvelopeSchema, 301: MovedResponse, ...errorResponses(404, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const row = await findCompany(ctx.db, request.params.slug);
        if (!row) {
          const current = await currentSlugFor(ctx.db, request.params.slug);
          if (current) return moved(reply, '/public', current);
          throw notFound(request.params.slug, true);
        }
        return { data: toCompany(row) };
      },
    );
  };
}
