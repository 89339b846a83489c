/**
 * Provenance of each of the nine tracked fields (spec: Resources › FieldSources).
 * `published`: carried by the source; `inferred`: derived by the service; `absent`: neither.
 */
export const PROVENANCE = ['published', 'inferred', 'absent'] as const;
export type Provenance = (typeof PROVENANCE)[number];

/** The nine keys, in the spec's order. Every row carries all nine. */
export const FIELD_SOURCE_KEYS = [
  'remote',
  'employment_type',
  'category',
  'seniority',
  'salary',
  'location',
  'posted_at',
  'description',
  'source_type',
] as const;
export type FieldSourceKey = (typeof FIELD_SOURCE_KEYS)[number];

export type FieldSources = Record<FieldSourceKey, Provenance>;

/**
 * Provenance of the three fields the original service's clients read (issue 19, compatibility),
 * added to `field_sources` when a row is served (never stored: each follows from the row):
 * - `company_domain`: `inferred` when known (the employer's registrable domain is the service's identity
 *   key, from the crawl target or the careers site, not a field of the posting), else `absent`;
 * - `state`: the provenance of `location` when the row has a state (it is read from the same location
 *   text or structured address as country and city), else `absent`;
 * - `expires_at`: `published` when the source stated a closing date (ATS field or JSON-LD
 *   `validThrough`), else `absent`: the service never estimates one;
 * - `repost_count` (issue 15, reality signals): always `inferred`: the service counts it from its own
 *   ledger (domain/lifecycle.ts decideRepostCount); no source states it;
 * - `first_seen_lag_hours` (issue 15): `inferred` when the row has `posted_at` (the lag is derived from
 *   the source's date and the ledger's first sighting), else `absent`: never estimated.
 */
export const SERVED_FIELD_SOURCE_KEYS = ['company_domain', 'state', 'expires_at', 'repost_count', 'first_seen_lag_hours'] as const;
export type ServedFieldSourceKey = (typeof SERVED_FIELD_SOURCE_KEYS)[number];
/** `field_sources` as served: the nine stored keys and the three of {@link SERVED_FIELD_SOURCE_KEYS}. */
export type ServedFieldSources = FieldSources & Record<ServedFieldSourceKey, Provenance>;
