/**
 * The error body as the contract shows it (spec: Resources › Error; Errors): `{error, message, docs}`
 * plus a code's own fields. `error` lists every code of the catalogue (`src/domain/errors.ts`), so the
 * contract test fails on a response with a code the catalogue lacks.
 */
import { Type, type TSchema } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../../domain/errors.ts';
import { StringEnum } from '../../domain/job.ts';

/** Every stable machine code, in the catalogue's order. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The error body (spec: Resources › Error). */
export const ErrorSchema = Type.Object(
  {
    error: StringEnum(ERROR_CODES, {
      description:
        'Stable machine code. Branch on this. Like every enumeration here it is not closed (spec: Versioning): a new code is a compatible change, so treat an unknown one by its HTTP status.',
    }),
    message: Type.String({ description: 'Human text; wording may change.' }),
    docs: Type.String({ description: 'Link to the documentation of this code.' }),
    type: Type.String({ format: 'uri', description: 'RFC 9457 problem type: the documentation of this code (the same link as docs).', examples: ['https://jobledger.example/docs/errors#bad_category'] }),
    title: Type.String({ description: 'RFC 9457 title: the HTTP reason phrase of status.', examples: ['Unprocessable Entity'] }),
    status: Type.Integer({ description: 'RFC 9457 status: the HTTP status code, repeated in the body.', examples: [422] }),
    retry_after: Type.Optional(Type.Integer({ description: 'Seconds; on 503 timeout.' })),
  },
  { $id: 'Error', description: 'The error body of every refusal (docs/errors.md): a stable code, a human message and its documentation, with the RFC 9457 fields.' },
);

/** Error responses a route can give, keyed by status, all with the error body. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorSchema]));
}
