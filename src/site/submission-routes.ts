/**
 * Direct submissions on the website (issue 17; spec: Website routes `submissions`; docs/submissions.md):
 * the form at `/submit`, `POST /public/submissions` (an HTML form post or JSON, with the ALTCHA human
 * check and the CSRF token, limited per client address and per e-mail address), the e-mailed
 * verification link's landing page `/submit/verify` and `POST /public/submissions/verify`, and the
 * submitter's edit-or-close page `/submit/manage` with `POST /public/submissions/manage`.
 *
 * The decisions (checks, ledger, e-mails) are the submission desk's (ingest/submissions.ts); the site
 * never imports ingest, so it declares here the port it needs and main/serve.ts hands the desk in.
 * A landing page never acts on GET: it shows a button that posts the token.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { FieldsRefused, type SubmissionField } from '../domain/submission-form.ts';
import { EMPLOYMENT_TYPES, REMOTE_VALUES } from '../domain/vocabulary.ts';
import type { SubmissionContent, SubmissionView } from '../store/submissions.ts';
import { confirmLinkPage, fields, fromBrowserForm, guardedForm, linkSent, queryToken, renderPage, type SiteContext } from './context.ts';

/** Largest submission body, bytes: a 20,000-character description, URL-encoded, fits. */
export const SUBMISSION_BODY_LIMIT = 96 * 1024;

/** A checked submission, as the desk returns it (opaque to the site but for its address). */
export interface CheckedSubmission {
  email: string;
  content: SubmissionContent;
}

/** What publishing, editing or confirming did to the vacancy's row. */
export interface SubmissionOutcome {
  submissionId: string;
  jobId: string;
  served: boolean;
  verdict: { verdict: string; ruleId?: string };
}

/** The port the website needs (implemented by ingest/submissions.ts `SubmissionDesk`). Errors are ApiErrors. */
export interface SubmissionService {
  parse(body: Record<string, unknown>): CheckedSubmission;
  submit(parsed: CheckedSubmission): Promise<void>;
  verify(token: unknown): Promise<SubmissionOutcome>;
  view(token: unknown): Promise<SubmissionView | undefined>;
  update(token: unknown, body: Record<string, unknown>): Promise<SubmissionOutcome>;
  confirm(token: unknown): Promise<SubmissionOutcome>;
  close(token: unknown): Promise<{ submissionId: string; jobId: string | null }>;
}

const SALARY_PERIODS = ['annual', 'monthly', 'weekly', 'daily', 'hourly'];

/** The form's values to show again (strings only, as typed). */
function formValues(body: Record<string, unknown>): Record<string, string> {
  const names = ['title', 'company', 'company_domain', 'location', 'employment_type', 'remote', 'description', 'apply_url', 'salary_min', 'salary_max', 'salary_currency', 'salary_period', 'email'];
  return Object.fromEntries(names.map((n) => [n, typeof body[n] === 'string' ? (body[n] as string).slice(0, 20_000) : '']));
}

function contentValues(content: SubmissionContent): Record<string, string> {
  return {
    title: content.title,
    company: content.company_name,
    location: content.location,
    employment_type: content.employment_type,
    remote: content.remote ?? '',
    description: content.description,
    apply_url: content.apply_url,
    salary_min: content.salary_min === null ? '' : String(content.salary_min),
    salary_max: content.salary_max === null ? '' : String(content.salary_max),
    salary_currency: content.salary_currency ?? '',
    salary_period: content.salary_period ?? '',
  };
}

/**
 * Each field of the submission form by its `name`: the control's id and its label, as the form pages
 * render them (views/submission-fields.eta, submit.eta: the salary fields' labels there are the short
 * "From", "To" under their "Salary" legend) and as error messages name them. One entry for each of
 * domain/submission-form.ts's SUBMISSION_FIELDS, no more, no fewer (the `satisfies` clause).
 */
const FORM_FIELDS: Readonly<Record<string, { id: string; label: string }>> = {
  title: { id: 's-title', label: 'Job title' },
  company: { id: 's-company', label: 'Company name' },
  location: { id: 's-location', label: 'Location' },
  employment_type: { id: 's-employment', label: 'Employment type' },
  remote: { id: 's-remote', label: 'Workplace' },
  description: { id: 's-description', label: 'Description' },
  apply_url: { id: 's-apply', label: 'Apply URL' },
  salary_min: { id: 's-salary-min', label: 'Salary from' },
  salary_max: { id: 's-salary-max', label: 'Salary to' },
  salary_currency: { id: 's-currency', label: 'Currency' },
  salary_period: { id: 's-period', label: 'Per' },
  company_domain: { id: 's-domain', label: 'Company domain' },
  email: { id: 's-email', label: 'Your e-mail address at that domain' },
} satisfies Record<SubmissionField, { id: string; label: string }>;

/** What both form pages render their controls from: the vocabularies offered and the fields' ids and labels. */
const choices = { employmentTypes: EMPLOYMENT_TYPES, remoteValues: REMOTE_VALUES, salaryPeriods: SALARY_PERIODS, fields: FORM_FIELDS };

/** One refused field as a form page shows it. */
interface ShownFieldError {
  /** The field's `name`, or undefined for an error about no field of the form. */
  name: string | undefined;
  /** The control's id (the summary links to `#id`; its own message is `id-error`). */
  id: string | undefined;
  message: string;
}

/**
 * What a form page shows of a refused submission or edit (the GOV.UK error summary pattern, all
 * without scripts): an error summary at the top (`heading`; views/error-summary.eta gives it the
 * focus, so a narrow screen opens on it rather than scrolled past it to a field) listing every refused
 * field's message as a link to that field (`errors`, in form order), and each refused field marked:
 * `invalidAttrs[name]` (`aria-invalid`, `aria-describedby` to its own copy of the message,
 * `fieldErrors[name]`, shown under its label). The messages name fields by their labels (“Apply URL”),
 * as the page does, where the JSON answer names them by their keys ("apply_url"). Empty maps when there
 * is no error.
 */
function errorView(error: ApiError | undefined, heading: string): { errors?: ShownFieldError[]; errorHeading?: string; fieldErrors: Record<string, string>; invalidAttrs: Record<string, string> } {
  const fieldErrors: Record<string, string> = {};
  const invalidAttrs: Record<string, string> = {};
  if (!error) return { fieldErrors, invalidAttrs };
  const errors = (error instanceof FieldsRefused ? error.fieldErrors : [error]).map((e): ShownFieldError => {
    const field = e.field !== undefined ? FORM_FIELDS[e.field] : undefined;
    const message = Object.entries(FORM_FIELDS).reduce((text, [name, { label }]) => text.replaceAll(`"${name}"`, `“${label}”`), e.message);
    return { name: field ? e.field : undefined, id: field?.id, message };
  });
  for (const { name, id, message } of errors) {
    if (name === undefined || id === undefined || name in fieldErrors) continue;
    fieldErrors[name] = message;
    invalidAttrs[name] = ` aria-invalid="true" aria-describedby="${id}-error"`;
  }
  return { errors, errorHeading: heading, fieldErrors, invalidAttrs };
}

function outcomeText(outcome: SubmissionOutcome, done: string): string {
  if (outcome.served) return `${done} It is served at /public/jobs/${outcome.jobId} and on every listing, with the provider class "direct".`;
  return `${done} It is not served at the moment: the quality checks withhold it (rule ${outcome.verdict.ruleId ?? outcome.verdict.verdict}). Write to us through the contact page if you think this is wrong.`;
}

export function submissionRoutes(ctx: SiteContext, desk: SubmissionService) {
  return async (app: FastifyInstance) => {
    const form = { bodyLimit: SUBMISSION_BODY_LIMIT, preHandler: app.csrfProtection };

    const formPage = (request: FastifyRequest, reply: FastifyReply, values: Record<string, string> = {}, error?: ApiError) =>
      renderPage(request, reply, 'submit', { title: error ? 'Error: Post a vacancy' : 'Post a vacancy', values, ...errorView(error, 'The vacancy was not sent'), ...choices }, error?.status ?? 200);

    const managePage = async (request: FastifyRequest, reply: FastifyReply, token: string, error?: ApiError, values?: Record<string, string>) => {
      const view = await desk.view(token);
      if (!view) throw new ApiError('link_invalid', 'This link is unknown or no longer valid: use the newest link we e-mailed you.');
      return renderPage(
        request,
        reply,
        'submit-manage',
        {
          title: error ? 'Error: Your vacancy' : 'Your vacancy',
          token,
          view,
          open: view.status === 'open',
          confirmed: view.confirmedAt?.toISOString().slice(0, 10) ?? '',
          lapses: view.lapsesAt?.toISOString().slice(0, 10) ?? '',
          values: values ?? contentValues(view.content),
          ...errorView(error, 'The changes were not saved'),
          ...choices,
        },
        error?.status ?? 200,
      );
    };

    app.get('/submit', async (request, reply) => formPage(request, reply));

    app.post('/public/submissions', form, async (request, reply) => {
      try {
        const parsed = await guardedForm(ctx, request, (body) => desk.parse(body));
        await desk.submit(parsed);
        const message = `A verification link was sent to ${parsed.email}. The vacancy is published once it is used.`;
        return linkSent(request, reply, { email: parsed.email, purpose: 'the link that publishes your vacancy', message }, 202);
      } catch (error) {
        // A browser gets its form back with what it typed and the message, not a dead-end page.
        if (fromBrowserForm(request) && error instanceof ApiError && error.status === 422) return formPage(request, reply, formValues(fields(request)), error);
        throw error;
      }
    });

    app.get('/submit/verify', confirmLinkPage({
      heading: 'Publish your vacancy',
      text: 'Press the button to publish the vacancy you submitted. The link works once.',
      action: '/public/submissions/verify',
      button: 'Publish the vacancy',
    }));

    app.post('/public/submissions/verify', form, async (request, reply) => {
      const outcome = await desk.verify(fields(request).token);
      ctx.log.info({ submission: outcome.submissionId, job: outcome.jobId, served: outcome.served, rule: outcome.verdict.ruleId }, 'direct submission verified');
      if (fromBrowserForm(request)) {
        return renderPage(request, reply, 'done', {
          title: 'Vacancy published',
          heading: outcome.served ? 'Your vacancy is published' : 'Your vacancy is verified',
          text: outcomeText(outcome, 'Thank you: we e-mailed you a link to edit or close it, and we will ask you every 30 days whether it is still open.'),
        });
      }
      return reply.send({ status: outcome.served ? 'published' : 'withheld', submission_id: outcome.submissionId, job_id: outcome.jobId, served: outcome.served, ...(outcome.served ? {} : { rule: outcome.verdict.ruleId ?? outcome.verdict.verdict }) });
    });

    app.get('/submit/manage', async (request, reply) => managePage(request, reply, queryToken(request)));

    app.post('/public/submissions/manage', form, async (request, reply) => {
      const body = fields(request);
      const action = body.action;
      const browser = fromBrowserForm(request);
      if (action === 'close') {
        const closed = await desk.close(body.token);
        if (browser) return renderPage(request, reply, 'done', { title: 'Vacancy closed', heading: 'Vacancy closed', text: 'The vacancy is closed: it is no longer listed, and clients that keep a copy are told it closed.' });
        return reply.send({ status: 'closed', submission_id: closed.submissionId, job_id: closed.jobId });
      }
      if (action === 'confirm') {
        const outcome = await desk.confirm(body.token);
        if (browser) return renderPage(request, reply, 'done', { title: 'Vacancy confirmed', heading: 'Thank you', text: outcomeText(outcome, 'The vacancy is confirmed as still open.') });
        return reply.send({ status: 'confirmed', submission_id: outcome.submissionId, job_id: outcome.jobId, served: outcome.served });
      }
      if (action === 'update') {
        try {
          const outcome = await desk.update(body.token, body);
          if (browser) return renderPage(request, reply, 'done', { title: 'Vacancy updated', heading: 'Vacancy updated', text: outcomeText(outcome, 'Your changes are saved.') });
          return reply.send({ status: 'updated', submission_id: outcome.submissionId, job_id: outcome.jobId, served: outcome.served });
        } catch (error) {
          if (browser && error instanceof ApiError && error.status === 422 && typeof body.token === 'string') return managePage(request, reply, body.token, error, formValues(body));
          throw error;
        }
      }
      throw new ApiError('bad_input', '"action" must be update, confirm or close.');
    });
  };
}
