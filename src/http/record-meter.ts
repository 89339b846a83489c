/**
 * The record allowance as route handlers see it (spec: Limits › Metering rules: one record per job row
 * returned, billed per key per month). A handler reserves records before it queries, serves at most
 * what was granted, then settles with what it actually served; the unused part of the reservation is
 * returned. Reservation is what makes concurrent pages exact: with 50 records left, five concurrent
 * `limit=10` pages are granted 50 records in total, never more.
 *
 * The keyed surface's meter is installed per request by the access layer after authentication; the
 * keyless surface and unmetered keys use {@link UNMETERED}.
 */

export interface RecordMeter {
  /**
   * Reserve up to `wanted` records. Returns how many may be served (1..wanted).
   * @throws ApiError 402 `record_quota_exhausted` when none remain.
   */
  reserve(wanted: number): Promise<number>;
  /**
   * Settle the last reservation: `used` records were served; the rest go back to the allowance.
   * A meter implementation must also release a reservation left unsettled when the response ends
   * (the handler failed after reserving): a failed request charges nothing.
   */
  settle(used: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The record meter of this request (UNMETERED unless the access layer installed another). */
    recordMeter: RecordMeter;
  }
}

/** A meter that grants everything and records nothing: keyless requests and keys exempt from metering. */
export const UNMETERED: RecordMeter = {
  reserve: async (wanted) => wanted,
  settle: async () => undefined,
};
