/**
 * The checked-in generated types (packages/sdk/src/generated/openapi.ts) match the OpenAPI document
 * the server serves now. When this fails after a route contract changed: `npm run sdk:generate`.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GENERATED_TYPES_PATH, generateTypes, liveDocument } from '../scripts/openapi-document.ts';

it('the SDK types are generated from the live OpenAPI document (else run `npm run sdk:generate`)', async () => {
  const expected = await generateTypes(await liveDocument());
  const checkedIn = readFileSync(GENERATED_TYPES_PATH, 'utf8');
  expect(checkedIn === expected, 'packages/sdk/src/generated/openapi.ts is stale: run `npm run sdk:generate` and commit the result').toBe(true);
});
