/**
 * `npm run sdk:generate`: regenerate packages/sdk/src/generated/openapi.ts from the live OpenAPI
 * document. Run it after any change to a route contract; `npm test` fails while the checked-in file
 * and the document differ (packages/sdk/test/generated-types.test.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_TYPES_PATH, generateTypes, liveDocument } from './openapi-document.ts';

const source = await generateTypes(await liveDocument());
mkdirSync(path.dirname(GENERATED_TYPES_PATH), { recursive: true });
writeFileSync(GENERATED_TYPES_PATH, source);
process.stdout.write(`wrote ${path.relative(process.cwd(), GENERATED_TYPES_PATH)} (${source.split('\n').length} lines)\n`);
