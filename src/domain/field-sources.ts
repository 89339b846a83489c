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
