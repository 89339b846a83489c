/**
 * The two surfaces' addresses as error messages name them, and the wording of what the keyless
 * surface refuses (spec: Endpoints › Keyless endpoints; Errors, "a 422 names the value and the
 * endpoint that lists the legal values").
 */

/** Which surface a request came in on: `/v1` (an API key) or `/public` (none). */
export type Surface = 'keyed' | 'keyless';

/** Where the legal values of each vocabulary are listed, per surface. */
export interface LegalValuesAt {
  /** The controlled vocabularies with live counts. */
  facets: string;
  /** The provider ids the `provider` filters accept. */
  providers: string;
  /** The machine contract, which describes formats and closed value lists. */
  contract: string;
}

/** {@link LegalValuesAt} of each surface: a keyless caller is pointed at keyless endpoints. */
export const LEGAL_VALUES_AT: Readonly<Record<Surface, LegalValuesAt>> = {
  keyed: { facets: '/v1/meta/facets', providers: '/v1/meta/providers', contract: '/v1/openapi.json' },
  keyless: { facets: '/public/facets', providers: '/public/providers', contract: '/public/openapi.json' },
};

/**
 * The 403 `paid_feature` message for paid-surface parameters sent without a key (spec: GET /v1/jobs
 * "Paid surface only"; our choice between the spec's two accounts, docs/listing.md).
 * @param asked what was asked, e.g. `status=closed`, `quality=all`, `include_poster_type`.
 */
export function paidFeatureMessage(asked: readonly string[]): string {
  return `${asked.join(' and ')} needs an API key: the keyless surface serves live, employer-direct rows only; send the request to /v1/jobs with "Authorization: Bearer <API_KEY>".`;
}

/**
 * The 402 `key_required_to_page` message (spec: Keyless endpoints, "A cursor on a keyless request
 * returns 402 key_required_to_page").
 * @param what the paging parameters sent, e.g. `the cursor`. @param keyedTwin e.g. `/v1/jobs`.
 */
export function keyRequiredToPageMessage(what: string, keyedTwin: string): string {
  return `Paging needs an API key: send ${what} to ${keyedTwin} with "Authorization: Bearer <API_KEY>".`;
}

/** Largest keyless page (spec: Keyless endpoints, "max 50 rows"; `limit` above 50 is clamped). */
export const KEYLESS_MAX_LIMIT = 50;
