/**
 * How every report states a share: a percentage with one decimal.
 */

/** `part` as a percentage of `whole`, one decimal; 0 when the whole is empty. */
export function pct(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0;
}
