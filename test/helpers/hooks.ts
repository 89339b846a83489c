/**
 * The shape of every `use*` test helper (useTestApp, useSite, useChromium, useAgencyPipeline, ...):
 * parts made once for a describe block, before its tests, and released after them.
 */
import { afterAll, beforeAll } from 'vitest';

/** The parts of `T` made so far (writable, each absent until made). */
export type Parts<T> = { -readonly [K in keyof T]?: T[K] };

/**
 * Register `make` as a `beforeAll` hook (it runs after the hooks registered before this call, and
 * before those registered after it) and `release` as an `afterAll` hook. `make` fills `made` part by
 * part, so `release` frees whatever was made even when `make` failed halfway.
 * @returns a view with one field per name in `parts`, reading `made`: reading a part that is not made
 *   (at module level or in a describe body, before `beforeAll` ran, or a part the options left out)
 *   throws an error naming `helper` and the part.
 */
export function useParts<T extends object>(
  helper: string,
  parts: ReadonlyArray<keyof T & string>,
  make: (made: Parts<T>) => Promise<void>,
  release: (made: Parts<T>) => Promise<void>,
): T {
  const made: Parts<T> = {};
  beforeAll(async () => {
    await make(made);
  });
  afterAll(async () => {
    await release(made);
  });
  const view = {} as T;
  for (const part of parts) {
    Object.defineProperty(view, part, {
      enumerable: true,
      get() {
        const value = made[part];
        if (value === undefined) throw new Error(`${helper}: ${part} is made in beforeAll (when the options ask for it); read it inside a hook or test`);
        return value;
      },
    });
  }
  return view;
}
