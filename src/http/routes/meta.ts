/**
 * Controlled vocabularies and providers with live-row counts, on both surfaces (spec: GET
 * /v1/meta/facets, GET /v1/meta/providers, GET /public/facets, GET /public/providers). They cost no
 * records. Counts come from a per-process snapshot refreshed every few minutes; every response says
 * when it was measured.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { FACET_GROUPS, FACET_PARAMETERS, FACETS_MAX_AGE_SECONDS, type FacetGroup, type LedgerFacets } from '../../reports/facets.ts';
import type { Snapshot } from '../../reports/snapshot.ts';
import type { AppContext } from '../context.ts';
import { servePlainRoute } from '../route.ts';

const FacetEntrySchema = Type.Object(
  {
    value: Type.String({ description: 'The value to send in the group\'s /v1/jobs parameter (see `parameters`).' }),
    label: Type.String({ description: 'Display text.' }),
    count: Type.Integer({ minimum: 0, description: 'Live rows carrying this value, as of measured_at.' }),
  },
  { $id: 'FacetEntry' },
);

const freshness = {
  measured_at: Type.String({ format: 'date-time', description: 'When the counts were measured.' }),
  age_seconds: Type.Integer({ minimum: 0, description: 'Seconds since measured_at.' }),
  refresh_seconds: Type.Integer({ description: 'Counts are re-measured once they are older than this.' }),
};

const FacetsSchema = Type.Object(
  {
    data: Type.Object(
      Object.fromEntries(FACET_GROUPS.map((g) => [g, Type.Array(FacetEntrySchema)])) as Record<FacetGroup, ReturnType<typeof Type.Array<typeof FacetEntrySchema>>>,
      {
        description:
          'Every controlled vocabulary, keyed by group. Closed vocabularies (family, state, remote, employment, seniority, source_type, provider) list every legal value, zero counts included; country and city list the values live rows carry. Sorted by count, most first.',
      },
    ),
    parameters: Type.Object(
      Object.fromEntries(FACET_GROUPS.map((g) => [g, Type.Literal(FACET_PARAMETERS[g])])) as Record<FacetGroup, ReturnType<typeof Type.Literal>>,
      { description: 'The /v1/jobs parameter each group\'s values are sent to.' },
    ),
    live_listings: Type.Integer({ description: 'Live rows in total, as of measured_at.' }),
    ...freshness,
  },
  { $id: 'Facets' },
);

const ProviderEntrySchema = Type.Object(
  {
    provider: Type.String({ description: 'Provider id: the value of `source` on its rows and of the `provider` filter.' }),
    label: Type.String(),
    live: Type.Integer({ minimum: 0, description: 'Live rows.' }),
    with_description: Type.Integer({ minimum: 0, description: 'Live rows with a description.' }),
    with_description_pct: Type.Number({ minimum: 0, maximum: 100, description: 'with_description as a percentage of live, one decimal.' }),
    provider_type: Type.String({ description: 'Source class in the legacy vocabulary: employer_ats, government or direct.' }),
    source_type: Type.String({ description: "The provider's row-level source_type: ats, career_site or public_agency." }),
  },
  { $id: 'ProviderEntry' },
);

const ProvidersSchema = Type.Object(
  {
    data: Type.Array(ProviderEntrySchema, { description: 'Every redistributable provider, most live rows first.' }),
    ...freshness,
  },
  { $id: 'Providers' },
);

function freshnessOf(snapshot: Snapshot<LedgerFacets>) {
  return {
    measured_at: snapshot.measuredAt.toISOString(),
    age_seconds: Math.max(0, Math.floor((Date.now() - snapshot.measuredAt.getTime()) / 1000)),
    refresh_seconds: FACETS_MAX_AGE_SECONDS,
  };
}

function facetsBody(snapshot: Snapshot<LedgerFacets>): Static<typeof FacetsSchema> {
  return { data: snapshot.value.groups, parameters: FACET_PARAMETERS, live_listings: snapshot.value.liveListings, ...freshnessOf(snapshot) };
}

function providersBody(snapshot: Snapshot<LedgerFacets>): Static<typeof ProvidersSchema> {
  return { data: snapshot.value.providers, ...freshnessOf(snapshot) };
}

/** The two meta answers, each served on both surfaces: keyed under `/v1/meta/`, keyless under `/public/`. */
const META_ANSWERS = [
  {
    path: 'facets',
    body: FacetsSchema,
    of: facetsBody,
    keyed: 'getFacets',
    keyless: 'getPublicFacets',
    summary: 'Every controlled vocabulary with live-row counts',
    description:
      'Every value each filter of /v1/jobs accepts (closed vocabularies in full, zero counts included; countries and cities as live rows carry them), with live-row counts and the parameter each group is sent to. Counts come from a snapshot re-measured every few minutes (measured_at); costs no records.',
  },
  {
    path: 'providers',
    body: ProvidersSchema,
    of: providersBody,
    keyed: 'getProviders',
    keyless: 'getPublicProviders',
    summary: 'Every redistributable provider with row counts and description coverage',
    description:
      'Every provider whose rows are served (the values of source and of the provider filter), with live rows, rows with a description and their share, and its source type. From the same snapshot as the facets (measured_at); costs no records.',
  },
] as const;

/** `/v1/meta/facets` and `/v1/meta/providers`; register inside the authenticated scope. */
export function keyedMetaRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    for (const m of META_ANSWERS) {
      servePlainRoute(app, { url: `/meta/${m.path}`, operationId: m.keyed, tags: ['meta'], summary: m.summary, description: m.description, surface: 'keyed', body: m.body }, async () => m.of(await ctx.facets.get()));
    }
  };
}

/** `/public/facets` and `/public/providers`: the same bodies, cacheable (keyless table). */
export function keylessMetaRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    // Cache-Control comes from the keyless table (plugins/keyless-access.ts).
    for (const m of META_ANSWERS) {
      servePlainRoute(app, { url: `/${m.path}`, operationId: m.keyless, tags: ['public'], summary: `${m.summary} (keyless)`, description: m.description, surface: 'keyless', body: m.body }, async () => m.of(await ctx.facets.get()));
    }
  };
}
