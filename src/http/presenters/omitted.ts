/**
 * The spec's "omitted when empty" rule for stored texts (Resources › Job, nullability table; every
 * Company field): a null or empty stored text is served as no field at all. The presenters set such a
 * field to `undefined`, which both serializers leave out (the response schema's and `JSON.stringify`).
 */

/** `value`, or undefined when it is null, undefined or the empty string. */
export function omittedWhenEmpty<T extends string>(value: T | null | undefined): T | undefined {
  return value === null || value === '' ? undefined : value;
}
