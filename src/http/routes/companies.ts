/**
 * The employer directory on both surfaces (spec: GET /v1/companies, GET /v1/companies/{slug},
 * GET /public/companies, GET /public/companies/{slug}).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CompanyEnvelopeSchema, CompanyPageSchema, type CompanyPage } from '../../domain/company.ts';
import { CursorError } from '../../domain/cursor.ts';
import { ApiError, quoteValue } from '../../domain/errors.ts';
import { currentSlugFor, findCompany, listCompanies, type CompanyPosition } from '../../store/company-directory.ts';
import type { AppContext } from '../context.ts';
import { KEYLESS_MAX_LIMIT, type Surface } from '../endpoints.ts';
import { keysetCursor, servePage, type PositionCodec } from '../paging.ts';
import { toCompany } from '../presenters/company.ts';
import { createRoute, keyedPage, serveRoute } from '../route.ts';
import { keyedDirectoryQuery, keylessDirectoryQuery, SlugParams, type DirectoryContext } from '../schemas/companies.ts';
import { errorResponses } from '../schemas/errors.ts';

const MovedResponse = Type.Null({
  description: 'Retired slug: Location names the current one. Never cached.',
  headers: {
    Location: { type: 'string', description: 'Path of the company under its current slug.' },
    'Cache-Control': { type: 'string', description: 'no-store' },
  },
});

/** Where a directory page starts: after a keyset position, at the running offset it stands for. */
interface DirectoryPosition {
  after: CompanyPosition;
  /** Rows before the page in the whole ordering. */
  offset: number;
  /** The company id of the last row served (the cursor's row id). */
  id: string;
}

/**
 * A directory cursor carries the keyset `(rank, name, slug)` and the running offset, so `offset` in a
 * cursor page still says where the page starts (docs/architecture.md, the employer directory).
 */
const DIRECTORY_POSITION: PositionCodec<DirectoryPosition> = {
  toCursor: (p) => ({ key: JSON.stringify([p.after.rank, p.after.name, p.after.slug, p.offset]), id: p.id }),
  fromCursor: (cursor) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(cursor.key);
    } catch {
      throw new CursorError('the cursor is malformed');
    }
    if (
      Array.isArray(parsed) &&
      parsed.length === 4 &&
      Number.isInteger(parsed[0]) &&
      typeof parsed[1] === 'string' &&
      typeof parsed[2] === 'string' &&
      Number.isInteger(parsed[3])
    ) {
      return { after: { rank: parsed[0] as number, name: parsed[1], slug: parsed[2] }, offset: parsed[3] as number, id: cursor.id };
    }
    throw new CursorError('the cursor is malformed');
  },
};

function directoryContextOf(request: FastifyRequest, surface: Surface): DirectoryContext {
  if (surface === 'keyless') return { surface, maxLimit: KEYLESS_MAX_LIMIT };
  // A country-locked key sees the directory of its country's rows (spec: Authentication item 9).
  return { surface, maxLimit: request.apiKey!.plan.max_page_size, countryLock: request.apiKey!.key.country_lock ?? undefined };
}

function notFound(slug: string, keyless: boolean): ApiError {
  const where = keyless ? '/public/companies?q=<name>' : '/v1/companies?q=<name>';
  return new ApiError('not_found', `No company has the slug ${quoteValue(slug)}. Slugs can change: re-resolve with ${where}.`);
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
  const list = createRoute({
    url: '/companies',
    operationId: 'listCompanies',
    tags: ['companies'],
    summary: 'Employer directory, most open roles first',
    description:
      'Ordering: GREATEST(open_roles, own_site_roles) descending, then name, then slug (total). open_roles reconciles exactly with GET /v1/jobs?company=<slug>. One record per company returned.',
    query: keyedDirectoryQuery,
    ...keyedPage(CompanyPageSchema, (request) => directoryContextOf(request, 'keyed')),
  });

  return async (app: FastifyInstance) => {
    serveRoute(app, list, async ({ request, query }): Promise<CompanyPage> => {
      const page = await servePage({
        meter: request.recordMeter,
        cursor: keysetCursor(ctx.cursorSecret, '/v1/companies', { filter: query.filter }, DIRECTORY_POSITION),
        sent: query.cursor,
        limit: query.limit,
        read: async (position, granted) => {
          const offset = position ? position.offset : query.offset;
          const found = await listCompanies(ctx.reader, query.filter, { limit: granted, offset, after: position?.after });
          const last = found.rows[found.rows.length - 1];
          const next = found.hasMore && last ? { after: { rank: last.rank, name: last.name, slug: last.slug }, offset: offset + found.rows.length, id: last.id } : undefined;
          return { rows: found.rows, next };
        },
      });
      const offset = page.after ? page.after.offset : query.offset;
      return { data: page.rows.map(toCompany), has_more: page.nextCursor !== null, limit: query.limit, offset, next_cursor: page.nextCursor };
    });

    app.withTypeProvider<TypeBoxTypeProvider>().get(
      '/companies/:slug',
      {
        schema: {
          operationId: 'getCompany',
          tags: ['companies'],
          summary: 'One employer by slug; a retired slug answers 301',
          description: 'One employer of the directory by its slug, with its open-role counts. A slug the employer had before answers 301 with Location naming the current one. Costs one record when found.',
          security: [{ bearerAuth: [] }],
          params: SlugParams,
          response: { 200: CompanyEnvelopeSchema, 301: MovedResponse, ...errorResponses(400, 401, 402, 404, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        // A company row costs one record (spec: Metering rules 2); a redirect or a miss costs none.
        await request.recordMeter.reserve(1);
        // A country-locked key finds only employers with rows in its country, by any slug.
        const countryLock = request.apiKey!.key.country_lock ?? undefined;
        const row = await findCompany(ctx.reader, request.params.slug, { countryLock });
        await request.recordMeter.settle(row ? 1 : 0);
        if (!row) {
          const current = await currentSlugFor(ctx.reader, request.params.slug);
          if (current && (!countryLock || (await findCompany(ctx.reader, current, { countryLock })))) return moved(reply, '/v1', current);
          throw notFound(request.params.slug, false);
        }
        return { data: toCompany(row) };
      },
    );
  };
}

/** `/public/companies` and `/public/companies/{slug}`: the same rows, one page of at most 50, cached. */
export function keylessCompanyRoutes(ctx: AppContext) {
  const list = createRoute({
    url: '/companies',
    operationId: 'listPublicCompanies',
    tags: ['public'],
    summary: 'Keyless employer directory: the first page only, at most 50 rows',
    description: 'The first page of /v1/companies without a key, at most 50 employers, most open roles first; paging (offset or cursor) needs a key (402 key_required_to_page). Cached for 10 minutes.',
    security: [],
    query: keylessDirectoryQuery,
    context: (request) => directoryContextOf(request, 'keyless'),
    response: { 200: CompanyPageSchema, ...errorResponses(400, 402, 422, 429, 500, 503) },
  });

  return async (app: FastifyInstance) => {
    serveRoute(app, list, async ({ request, query }): Promise<CompanyPage> => {
      const page = await servePage({
        meter: request.recordMeter,
        limit: query.limit,
        read: (_after, granted) => listCompanies(ctx.reader, query.filter, { limit: granted, offset: 0 }),
      });
      // The keyless surface does not page: has_more is false and next_cursor null by definition.
      return { data: page.rows.map(toCompany), has_more: false, limit: query.limit, offset: 0, next_cursor: null };
    });

    app.withTypeProvider<TypeBoxTypeProvider>().get(
      '/companies/:slug',
      {
        schema: {
          operationId: 'getPublicCompany',
          tags: ['public'],
          summary: 'One employer by slug; a retired slug answers 301',
          description: 'One employer by its slug without a key; a retired slug answers 301 with Location naming the current one. Cached for 10 minutes.',
          security: [],
          params: SlugParams,
          response: { 200: CompanyEnvelopeSchema, 301: MovedResponse, ...errorResponses(400, 404, 429, 500, 503) },
        },
      },
      async (request, reply) => {
        const row = await findCompany(ctx.reader, request.params.slug);
        if (!row) {
          const current = await currentSlugFor(ctx.reader, request.params.slug);
          if (current) return moved(reply, '/public', current);
          throw notFound(request.params.slug, true);
        }
        return { data: toCompany(row) };
      },
    );
  };
}
