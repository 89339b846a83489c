/**
 * The error a promise rejects with, for tests that go on to inspect it (its kind, status, message).
 */
import { expect } from 'vitest';

/**
 * Await `promise` and return what it rejects with, which must be an instance of `type`.
 * @throws Error when the promise resolves instead (the test then fails naming the expected class).
 */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(type);
    return err as E;
  }
  throw new Error(`expected a ${type.name}, got an answer`);
}
