import { Type, type Static, type TSchema } from 'typebox';
import { FIELD_SOURCE_KEYS, PROVENANCE, SERVED_FIELD_SOURCE_KEYS } from './field-sources.ts';
import { REQUIRABLE_FIELDS } from './listing-filter.ts';
import {
  CLOSED_REASONS,
  JOB_STATUSES,
  PROVIDER_TYPES,
  REMOTE_VALUES,
  SALARY_SOURCES,
  SOURCE_TYPES,
} from './vocabulary.ts';

/** A union of string literals, rendered in OpenAPI as `enum`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

function Nullable<T extends TSchema>(schema: T, description: string) {
  return Type.Union([schema, Type.Null()], { description });
}

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

/**
 * The spec's nine provenance keys, always present (spec: Resources › FieldSources), and the three of
 * the fields added for the original service's clients (`company_domain`, `state`, `expires_at`; issue
 * 19), also always present on a served row.
 */
export const FieldSourcesSchema = Type.Object(
  Object.fromEntries([...FIELD_SOURCE_KEYS, ...SERVED_FIELD_SOURCE_KEYS].map((k) => [k, StringEnum(PROVENANCE)])) as Record<
    (typeof FIELD_SOURCE_KEYS)[number] | (typeof SERVED_FIELD_SOURCE_KEYS)[number],
    ReturnType<typeof StringEnum<typeof PROVENANCE>>
  >,
  {
    $id: 'FieldSources',
    description:
      'Provenance of the spec\'s nine fields, plus company_domain, state, expires_at, repost_count and first_seen_lag_hours: published (carried by the source), inferred (derived by the service) or absent. company_domain is inferred when known (the service\'s employer identity, not a posting field); state follows location; expires_at is published when the source stated a closing date; repost_count is always inferred (counted from the ledger); first_seen_lag_hours is inferred when posted_at is known, else absent.',
  },
);

/**
 * The Job resource exactly as served (spec: Resources › Job and its nullability table).
 * "Always present" fields are required, "present, may be null" are required and nullable, "omitted when
 * empty" are optional. The response serializer drops any property this schema does not declare.
 */
export const JobSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Stable identity.' }),
    slug: Type.String({ description: 'Title slug plus the first 8 characters of the id; accepted wherever an id is. Fixed when the row is created.' }),
    title: Type.String(),
    company: Type.String({ description: 'Display name.' }),
    company_slug: Type.String({ description: 'Not guaranteed stable over time; prefer company_domain as a key.' }),
    company_logo: Type.Optional(Type.String({ description: 'URL.' })),
    company_domain: Type.Optional(
      Type.String({ description: "The employer's registrable domain: the stable company key (the company_domain filter matches it). Omitted when unknown.", examples: ['anthropic.com'] }),
    ),
    category: Type.Optional(Type.String({ description: 'One of the category families; always inferred from the title.' })),
    category_confidence: Nullable(Type.Number({ minimum: 0.6, maximum: 1 }), 'Null, or >= 0.6.'),
    country: Type.Optional(Type.String({ minLength: 2, maxLength: 2, description: 'ISO-3166 alpha-2; left out when ambiguous.' })),
    city: Type.Optional(Type.String()),
    state: Type.Optional(
      Type.String({ pattern: '^[A-Z]{2}$', description: 'Two-letter US state code, the value the state filter matches; only on US rows whose location names exactly one state.', examples: ['CA'] }),
    ),
    location: Type.Optional(Type.String({ description: 'Original free text.' })),
    remote: Type.Optional(StringEnum(REMOTE_VALUES)),
    remote_inferred: Type.Boolean({ description: 'True when the service derived `remote` rather than read it from the source.' }),
    employment_type: Type.Optional(Type.String()),
    seniority: Type.Optional(Type.String({ description: 'Always inferred from the title.' })),
    posted_at: Type.Optional(Timestamp('When the source published the vacancy.')),
    first_seen_at: Type.Optional(Timestamp('When the vacancy entered the ledger.')),
    first_seen_lag_hours: Type.Optional(
      Type.Integer({
        description:
          'How far posted_at lags first_seen_at: first_seen_at minus posted_at, in whole hours. Large: the ledger found the vacancy long after the source dated it. Negative: the source dated it after the ledger first saw it (re-dated). Omitted without posted_at; never estimated.',
        examples: [5],
      }),
    ),
    repost_count: Type.Integer({
      minimum: 0,
      description:
        'How many times the same employer, title and location was seen again after closing (a closed row reopening, or a new posting once an earlier one left its source). 0: never, as far as the ledger knows. Always inferred.',
      examples: [0],
    }),
    last_verified_at: Timestamp('When the vacancy was last confirmed to still exist at its source.'),
    status: StringEnum(JOB_STATUSES),
    closed_at: Nullable(Timestamp('When the ledger closed the row.'), 'Null on live rows.'),
    closed_reason: Nullable(StringEnum(CLOSED_REASONS), 'Null on live rows.'),
    upstream_expired_at: Type.Optional(Timestamp('When the vacancy was proved dead upstream.')),
    expires_at: Type.Optional(Timestamp("The closing date the source stated (an ATS field or the posting's JSON-LD validThrough); never estimated. After it the ledger closes the row as expired_upstream.")),
    apply_url: Type.Optional(Type.String({ description: "The employer's own application page." })),
    source: Type.String({ description: 'Provider id; see /public/providers.' }),
    source_type: StringEnum(SOURCE_TYPES),
    provider_type: StringEnum(PROVIDER_TYPES),
    has_description: Type.Boolean(),
    description: Type.Optional(Type.String({ description: 'Sanitized HTML. Only with include_description=true, and on single-row endpoints.' })),
    salary_min: Type.Optional(Type.Number({ description: "As stated, in the source's currency and period." })),
    salary_max: Type.Optional(Type.Number({ description: "As stated, in the source's currency and period." })),
    salary_currency: Type.Optional(Type.String({ description: 'ISO 4217.' })),
    salary_period: Type.Optional(Type.String({ description: 'annual, monthly, weekly, daily or hourly.' })),
    salary_source: Type.Optional(StringEnum(SALARY_SOURCES)),
    salary_min_annual_eur: Nullable(Type.Number(), 'salary_min converted to EUR per year; null when period or currency is unknown. Never guessed.'),
    salary_max_annual_eur: Nullable(Type.Number(), 'salary_max converted to EUR per year by the same rule and rates as salary_min_annual_eur; null when salary_max, the period or the currency is unknown. Never guessed.'),
    field_sources: FieldSourcesSchema,
    attribution: Type.Optional(Type.String()),
    canonical_url: Type.Optional(Type.String()),
    quality_verdict: Type.Optional(Type.String({ description: 'Only with quality=all: the quality gate verdict.' })),
    quality_rule_id: Type.Optional(Type.String({ description: 'Only with quality=all: the rule that decided the verdict.' })),
    quality_matched_host: Type.Optional(Type.String({ description: 'Only with quality=all: the host the rule matched.' })),
  },
  { $id: 'Job', description: 'A job vacancy with per-field provenance.' },
);
export type Job = Static<typeof JobSchema>;

/**
 * `{ data: Job, description }`, the single-row wrapper (spec: Job page). `description` repeats
 * `data.description` at the top level (null when the row has none) because the original service's
 * published clients read `body.description` (issue 19, compatibility).
 */
export const JobEnvelopeSchema = Type.Object(
  {
    data: JobSchema,
    description: Nullable(Type.String(), 'The same sanitized HTML as data.description, repeated for the original clients; null when the row has no description.'),
  },
  { $id: 'JobEnvelope', description: 'One job row (description included), wrapped in data; description repeated at the top level.' },
);
export type JobEnvelope = Static<typeof JobEnvelopeSchema>;

/** A page of jobs (spec: Resources › Job page). */
export const JobPageSchema = Type.Object(
  {
    data: Type.Array(JobSchema),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String(), 'Opaque; pass back verbatim, URL-encoded. Null on the last page.'),
    completeness: Type.Optional(
      Type.Object(
        Object.fromEntries(REQUIRABLE_FIELDS.map((k) => [k, Type.Optional(Type.Integer({ minimum: 0 }))])) as Record<
          (typeof REQUIRABLE_FIELDS)[number],
          ReturnType<typeof Type.Optional<ReturnType<typeof Type.Integer>>>
        >,
        {
          description:
            'Only when require_fields was sent: for each named field (the key), how many live rows across the whole ledger have it `published` in field_sources. From the facet snapshot (see /v1/meta/facets measured_at).',
        },
      ),
    ),
  },
  { $id: 'JobPage', description: 'A page of job rows in its operation\'s order; next_cursor pages on (null on the last page, and always null on the keyless surface).' },
);
export type JobPage = Static<typeof JobPageSchema>;
