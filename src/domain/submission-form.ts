/**
 * The direct-submission form's fields and its refusal (issue 17; docs/submissions.md): shared by the
 * checks that refuse a submission (ingest/submissions.ts) and the pages that show the refusal
 * (site/submission-routes.ts), which may not import each other.
 */
import { ApiError } from './errors.ts';

/**
 * The fields of the submission form by `name`, in the order the form shows them (views/submit.eta:
 * the vacancy, its salary, then the company domain and the address); {@link FieldsRefused.fieldErrors}
 * come in this order.
 */
export const SUBMISSION_FIELDS = [
  'title',
  'company',
  'location',
  'employment_type',
  'remote',
  'description',
  'apply_url',
  'salary_min',
  'salary_max',
  'salary_currency',
  'salary_period',
  'company_domain',
  'email',
] as const;

/** One field of the submission form, by its `name`. */
export type SubmissionField = (typeof SUBMISSION_FIELDS)[number];

function formPosition(error: ApiError): number {
  const at = (SUBMISSION_FIELDS as readonly (string | undefined)[]).indexOf(error.field);
  return at < 0 ? SUBMISSION_FIELDS.length : at;
}

/**
 * A refused submission or edit: to an API caller it is the first field error the checks found, the
 * same code, status and message (the JSON body is that error's alone, as when the checks stopped at
 * it); a form page shows {@link fieldErrors}, every refused field's error (that one included), one per
 * field, in the form's order ({@link SUBMISSION_FIELDS}). `fieldErrors` is never part of the body.
 */
export class FieldsRefused extends ApiError {
  readonly fieldErrors: readonly ApiError[];

  /** @param found the field errors in the order they were found; at least one. */
  constructor(found: readonly [ApiError, ...ApiError[]]) {
    const [first] = found;
    super(first.code, first.message, { field: first.field, headers: { ...first.headers }, extra: { ...first.extra } });
    this.fieldErrors = [...found].sort((a, b) => formPosition(a) - formPosition(b));
  }
}
