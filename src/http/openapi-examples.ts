/**
 * A real example on every operation of the OpenAPI document (issue 19): what the service served, from
 * the demo ledger (the bundled recorded feeds, fixtures/), for one stated request per operation.
 *
 * The examples are recorded, not written: `openapi-examples.json` beside this file is produced by
 * test/openapi-examples.test.ts with `JOBLEDGER_RECORD_OPENAPI_EXAMPLES=1` (it sends each request to the
 * app over the imported corpus and keeps the answer), and the same test, run normally, sends the
 * requests again and fails when an example no longer matches what is served (ids, slugs, cursors and
 * instants aside, which change with every import). The two documents' own operations point at
 * themselves (`externalValue`).
 */
import { readFileSync } from 'node:fs';

/** One recorded exchange. */
export interface RecordedExample {
  /** The request as sent, e.g. `GET /public/jobs?limit=1` (an id or slug as it was at recording). */
  request: string;
  /** The JSON body sent with a POST, if any. */
  payload?: unknown;
  /** The status answered, as the document's response key. */
  status: string;
  /** The answer's media type. */
  mediaType: string;
  /** The answer: parsed JSON, or the text of a non-JSON body. */
  value?: unknown;
  /** Instead of a value: where the example is served (the document's own operations). */
  externalValue?: string;
}

/** Where the recorded examples live (checked in). */
export const EXAMPLES_FILE = new URL('./openapi-examples.json', import.meta.url);

/** The recorded examples by operationId; empty when the file is missing. */
export function recordedExamples(): Record<string, RecordedExample> {
  try {
    return JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as Record<string, RecordedExample>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

type Json = Record<string, unknown>;

const SUMMARY = 'Served by the demo ledger (the bundled recorded feeds)';

/**
 * The Example Objects of one recorded answer. An NDJSON body, whose schema is that of one line, is
 * shown line by line (`demo-line-1`, ...); any other as one example (`demo`).
 */
function mediaExamples(example: RecordedExample): Json {
  if (example.externalValue !== undefined) return { demo: { summary: `${example.request}: ${SUMMARY}`, externalValue: example.externalValue } };
  if (example.mediaType === 'application/x-ndjson' && typeof example.value === 'string') {
    const lines = example.value.split('\n').filter((line) => line.length > 0);
    return Object.fromEntries(lines.map((line, i) => [`demo-line-${i + 1}`, { summary: `${example.request}: line ${i + 1} of ${lines.length}, ${SUMMARY.toLowerCase()}`, value: JSON.parse(line) as unknown }]));
  }
  return { demo: { summary: `${example.request}: ${SUMMARY}`, value: example.value } };
}

/**
 * Put each operation's recorded example on the response it was answered with (and its payload on the
 * request body): a `transformObject` step of @fastify/swagger. Returns the same document.
 */
export function documentExamples<T>(document: T, examples: Record<string, RecordedExample> = recordedExamples()): T {
  for (const item of Object.values(((document as Json).paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) {
      const example = examples[String(operation?.operationId)];
      if (!example) continue;
      const media = ((operation.responses as Record<string, Json> | undefined)?.[example.status]?.content as Record<string, Json> | undefined)?.[example.mediaType];
      if (!media) continue;
      media.examples = mediaExamples(example);
      if (example.payload !== undefined) {
        const request = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
        if (request) request.examples = { demo: { summary: `${example.request}: sent to the demo ledger`, value: example.payload } };
      }
    }
  }
  return document;
}

/**
 * Optional parameters keep their example, as an Example Object marked `x-disabled: true`: Scalar's
 * extension, by which the /docs page's try-it client lists the example but leaves the parameter out of
 * the request until the reader ticks it. With a bare `example` it sends every example at once
 * (`/public/jobs?category=Engineering&status=any&...`, a 403 paid_feature), and an example
 * `If-None-Match` would even turn the answer into a 304. A `transformObject` step; returns the same
 * document.
 */
export function documentOptionalParameterExamples<T>(document: T): T {
  const doc = document as Json;
  const parameters: Json[] = Object.values(((doc.components as Json | undefined)?.parameters ?? {}) as Record<string, Json>);
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const operation of Object.values(item) as Json[]) parameters.push(...((operation?.parameters ?? []) as Json[]));
  }
  for (const parameter of parameters) {
    if (parameter.required === true || parameter.in === 'path' || !('example' in parameter)) continue;
    parameter.examples = { example: { value: parameter.example, 'x-disabled': true } };
    delete parameter.example;
  }
  return document;
}
