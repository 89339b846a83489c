/**
 * Human verification with ALTCHA (issue 14): a self-hosted proof of work, no third-party service, so
 * it works on a machine with no internet. The server makes HMAC-signed PBKDF2-SHA-256 challenges
 * (`altcha-lib`); the browser widget (`altcha`, served from this server) solves one and puts the
 * payload in the form's `altcha` field; the server checks the signature, the solution and the expiry,
 * and spends the challenge so a payload works once (per process: a bounded in-memory set, enough
 * because a challenge expires after {@link CHALLENGE_SECONDS}).
 */
import { createChallenge, CappedMap, randomInt } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { create } from 'altcha-lib/frameworks/fastify';
import type { Challenge } from 'altcha-lib/types';
import { ApiError } from '../domain/errors.ts';

/** How long a challenge may be solved and submitted, seconds. */
export const CHALLENGE_SECONDS = 600;
/** Spent challenges remembered per process (oldest forgotten first; they expire anyway). */
const SPENT_CAPACITY = 100_000;

export interface HumanCheck {
  /** A fresh signed challenge for the widget. */
  challenge(): Promise<Challenge>;
  /** @throws ApiError verification_failed when the payload is missing, wrong, expired or spent. */
  check(payload: unknown): Promise<void>;
}

/** ALTCHA over `secret` with `cost` PBKDF2 iterations and counters up to `maxCounter`. */
export function humanCheck(secret: string, settings: { cost: number; maxCounter: number }): HumanCheck {
  const hmacSignatureSecret = `altcha:${secret}`;
  const spent = new CappedMap<string, boolean>({ maxSize: SPENT_CAPACITY });
  const { verify } = create({ deriveKey, hmacSignatureSecret, store: spent });
  return {
    challenge: () =>
      createChallenge({
        algorithm: 'PBKDF2/SHA-256',
        cost: settings.cost,
        counter: randomInt(Math.max(0, Math.floor(settings.maxCounter / 2)), settings.maxCounter),
        deriveKey,
        hmacSignatureSecret,
        expiresAt: new Date(Date.now() + CHALLENGE_SECONDS * 1000),
      }),
    async check(payload) {
      if (typeof payload !== 'string' || payload === '' || payload.length > 10_000) {
        throw new ApiError('verification_failed', 'The human verification (ALTCHA) is missing: tick "I\'m not a robot" and send the form again.');
      }
      const result = await verify(payload, deriveKey, hmacSignatureSecret, undefined, spent);
      if (result.error) throw new ApiError('verification_failed', 'The human verification (ALTCHA) failed, expired or was already used: verify again and send the form.');
    },
  };
}
