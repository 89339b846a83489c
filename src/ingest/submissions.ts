/**
 * Direct submissions (issue 17; spec: "Every listing comes from ... or a direct submission"): an
 * employer submits one vacancy on the website (`POST /public/submissions`, src/site/submission-routes.ts),
 * a link goes to an address at the company's domain, and only a verified submission enters the ledger,
 * as provider `submissions` (class `direct`, row-level `source_type` `career_site`), through the same
 * enrichment, quality gate and change feed as every crawled posting ({@link SubmissionDesk.verify}).
 *
 * Lifecycle (docs/submissions.md):
 * - the submitter's edit-or-close link edits the vacancy (`updated` on the feed when served content
 *   changes), closes it (`expired_upstream`, `delisted`) or confirms it is still open (re-verifies it);
 * - every {@link RECONFIRM_DAYS} days without a confirmation a reminder is e-mailed; a vacancy not
 *   confirmed {@link GRACE_DAYS} days after that closes `not_seen` ({@link SubmissionDesk.sweep});
 * - the operator lists and rejects submissions (`jobledger submissions`): a published one is withheld
 *   (`quality_removed`, rule `submission.rejected`, `withdrawn` on the feed).
 *
 * This lives in ingest because it writes the ledger the way the pipeline does; the website reaches it
 * through the port it declares (site/submission-routes.ts), wired by main/serve.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import emailProviders from 'email-providers';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { issueEmailToken, redeemEmailToken } from '../accounts/email-links.ts';
import { emailDomain, normalizeEmail } from '../accounts/email-address.ts';
import { bareDomain } from '../domain/domain-name.ts';
import { isOptedOut } from '../domain/employer.ts';
import { ApiError } from '../domain/errors.ts';
import { FieldsRefused } from '../domain/submission-form.ts';
import type { SourcePosting } from '../domain/posting.ts';
import type { QualityVerdict } from '../domain/quality.ts';
import { EMPLOYMENT_TYPES, REMOTE_VALUES, type EmploymentType, type Remote } from '../domain/vocabulary.ts';
import { enrichPosting } from '../enrich/enrich.ts';
import { isFxCurrency, loadFxRates, type FxRates } from '../enrich/fx.ts';
import type { Mailer } from '../mail/mailer.ts';
import { submissionPublishedMail, submissionReminderMail, submissionVerifyMail } from '../mail/submission-messages.ts';
import { applyCrawl, closeNotSeenRows, closeProvedDead } from '../store/ledger.ts';
import { loadActiveOptouts } from '../store/optouts.ts';
import type { DB, SubmissionRow } from '../store/schema.ts';
import {
  confirmSubmissionRow,
  deleteStalePendingSubmissions,
  deleteSubmission,
  endSubmission,
  findSubmission,
  findSubmissionByManageHash,
  insertSubmission,
  jobOfSubmission,
  listSubmissions,
  markSubmissionOpen,
  rotateManageToken,
  submissionsToLapse,
  submissionsToRemind,
  updateSubmissionContent,
  type SubmissionContent,
  type SubmissionView,
} from '../store/submissions.ts';
import { applyHosts } from './connectors/registry.ts';
import { currentFxRates } from './fx-refresh.ts';
import { judgePosting } from './quality-gate.ts';

/** The provider id of submitted rows (migration 021): class `direct`, source_type `career_site`. */
export const SUBMISSION_PROVIDER = 'submissions';
/** The gate's `board` for a submission (no ATS board: its apply hosts are a careers page's). */
const SUBMISSION_BOARD = 'submissions';
/** Days between re-confirmation reminders (issue 17: "a reminder to re-confirm every 30 days"). */
export const RECONFIRM_DAYS = 30;
/** Days after the reminder before an unconfirmed vacancy closes `not_seen`. */
export const GRACE_DAYS = 7;

/** Longest accepted value per field, characters. */
export const SUBMISSION_LIMITS = { title: 200, company: 200, location: 200, description: 20_000, applyUrl: 2000, rejectReason: 500 } as const;
/** Largest stated salary amount accepted (in any currency and period). */
const MAX_SALARY = 1_000_000_000;
const SALARY_PERIODS = ['annual', 'monthly', 'weekly', 'daily', 'hourly'] as const;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Domains where anyone can get an address (the `email-providers` list, ISC): an address there proves
 * nothing about an employer, so such a domain is no company domain here, unless the operator has
 * accepted it as an employer's own (`JOBLEDGER_SUBMISSION_EMPLOYER_DOMAINS`). The list is broad and
 * partly historical: it names companies whose public mail service ended or never was open to all
 * (facebook.com, alibaba.com, berlin.de, nus.edu.sg), whose staff can only submit once accepted.
 */
const PUBLIC_MAIL_DOMAINS: ReadonlySet<string> = new Set(emailProviders as string[]);

/** A checked submission: what the employer states, and the address at the company's domain. */
export interface ParsedSubmission {
  content: SubmissionContent;
  email: string;
  companyDomain: string;
}

/** What publishing (or re-publishing) a submission did to its ledger row. */
export interface PublishedSubmission {
  submissionId: string;
  jobId: string;
  /** True when the row is served; false when the quality gate withholds it (then `verdict` says why). */
  served: boolean;
  verdict: QualityVerdict;
}

export interface SubmissionDeskDeps {
  db: Kysely<DB>;
  log: Logger;
  mailer: Mailer;
  /** Absolute base of the links in e-mails, no trailing slash. */
  siteUrl: string;
  /** Lifetime of the verification link, seconds (`JOBLEDGER_LINK_TTL_SECONDS`). */
  linkTtlSeconds: number;
  /** Print links in the log too (the outbox mailer: nobody reads a real inbox). */
  logLinks?: boolean;
  /** The indicative FX rates for `salary_min_annual_eur` (default: the newest stored over the bundled history). */
  fx?: () => Promise<FxRates>;
  /**
   * Company domains the operator accepts although the public e-mail provider list names them
   * (`JOBLEDGER_SUBMISSION_EMPLOYER_DOMAINS`: addresses there are given to the company's staff only).
   */
  employerDomains?: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Input: every field is hostile until checked here.
// ---------------------------------------------------------------------------------------------

/** C0/C1 controls except tab and line breaks, bidi overrides and other invisible format characters. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point: they are removed.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

function rawText(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiError('bad_input', `"${name}" must be text.`, { field: name });
  if (value.length > max) throw new ApiError('bad_input', `"${name}" is longer than ${max} characters.`, { field: name });
  return value;
}

/** One line of text: controls removed, whitespace collapsed; '' when absent. */
function lineField(body: Record<string, unknown>, name: string, max: number): string {
  return (rawText(body, name, max) ?? '').replace(CONTROL, '').replace(/\s+/g, ' ').trim();
}

function requiredLine(body: Record<string, unknown>, name: string, max: number, example: string): string {
  const value = lineField(body, name, max);
  if (!value) throw new ApiError('bad_input', `"${name}" is required, e.g. ${example}.`, { field: name });
  return value;
}

function choice<T extends string>(body: Record<string, unknown>, name: string, values: readonly T[], required: boolean): T | null {
  const value = lineField(body, name, 40);
  if (!value) {
    if (required) throw new ApiError('bad_input', `"${name}" is required: one of ${values.join(', ')}.`, { field: name });
    return null;
  }
  const found = values.find((v) => v.toLowerCase() === value.toLowerCase());
  if (!found) throw new ApiError('bad_input', `"${name}" must be one of ${values.join(', ')}.`, { field: name });
  return found;
}

function amount(body: Record<string, unknown>, name: string): number | null {
  const raw = body[name];
  if (raw === undefined || raw === null || raw === '') return null;
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim().replace(/[\s,_']/g, '') : undefined;
  if (text === undefined || !/^\d{1,10}(\.\d{1,2})?$/.test(text)) throw new ApiError('bad_input', `"${name}" must be a positive amount such as 65000 or 32.50.`, { field: name });
  const value = Number(text);
  if (!(value > 0) || value > MAX_SALARY) throw new ApiError('bad_input', `"${name}" must be more than 0 and at most ${MAX_SALARY}.`, { field: name });
  return value;
}

/**
 * The field errors of one form, at most one per field, in the order found. The checks run in the order
 * they always ran when the first refusal stopped them, so the first error found is the one the API
 * has always answered; a check that needs another field (the apply URL and the address on the company
 * domain, the salary range) runs only when that field is valid.
 */
class FieldErrors {
  readonly found: ApiError[] = [];

  /** What `check` returns, or undefined when it refused its field (the error is kept). */
  check<T>(check: () => T): T | undefined {
    try {
      return check();
    } catch (error) {
      if (!(error instanceof ApiError) || error.field === undefined) throw error;
      this.add(error);
      return undefined;
    }
  }

  /** Keep `error`, unless its field has one already. */
  add(error: ApiError): void {
    if (!this.found.some((e) => e.field === error.field)) this.found.push(error);
  }

  /** Throw {@link FieldsRefused} when any field was refused. */
  throwIfAny(): void {
    const [first, ...rest] = this.found;
    if (first) throw new FieldsRefused([first, ...rest]);
  }
}

type Salary = Pick<SubmissionContent, 'salary_min' | 'salary_max' | 'salary_currency' | 'salary_period'>;

/**
 * The stated salary: all of min, currency and period, or nothing; max optional and at least min. A
 * malformed amount counts as a stated salary (so the missing currency or period is named too).
 * @returns undefined when one of the four fields was refused (its error is in `errors`).
 */
function salary(body: Record<string, unknown>, errors: FieldErrors): Salary | undefined {
  const before = errors.found.length;
  // undefined: refused; null: absent.
  const min = errors.check(() => amount(body, 'salary_min'));
  const max = errors.check(() => amount(body, 'salary_max'));
  const currencyText = errors.check(() => lineField(body, 'salary_currency', 10).toUpperCase());
  const period = errors.check(() => choice(body, 'salary_period', SALARY_PERIODS, false));
  if (min === null && max === null) return errors.found.length > before ? undefined : { salary_min: null, salary_max: null, salary_currency: null, salary_period: null };
  if (min === null) errors.add(new ApiError('bad_input', '"salary_min" is required when a salary is stated (give the same amount twice for a single figure).', { field: 'salary_min' }));
  if (typeof min === 'number' && typeof max === 'number' && max < min) errors.add(new ApiError('bad_input', '"salary_max" must not be less than "salary_min".', { field: 'salary_max' }));
  if (currencyText !== undefined && (!currencyText || !isFxCurrency(currencyText))) {
    errors.add(new ApiError('bad_input', '"salary_currency" is required with a salary: an ISO 4217 code such as EUR, USD or GBP.', { field: 'salary_currency' }));
  }
  if (period === null) errors.add(new ApiError('bad_input', `"salary_period" is required with a salary: one of ${SALARY_PERIODS.join(', ')}.`, { field: 'salary_period' }));
  if (errors.found.length > before || typeof min !== 'number' || max === undefined || !currencyText || !period) return undefined;
  return { salary_min: min, salary_max: max, salary_currency: currencyText, salary_period: period };
}

/**
 * The employer's own registrable domain: not one where anyone can get an address, unless the operator
 * accepted it (`employerDomains`, bare domains). @throws ApiError bad_domain.
 */
function companyDomainOf(body: Record<string, unknown>, employerDomains: ReadonlySet<string>): string {
  const raw = lineField(body, 'company_domain', 253);
  const domain = raw ? bareDomain(raw) : undefined;
  if (!domain) throw new ApiError('bad_domain', '"company_domain" must be the employer\'s domain name, e.g. example.com.', { field: 'company_domain' });
  if (PUBLIC_MAIL_DOMAINS.has(domain) && !employerDomains.has(domain)) {
    throw new ApiError(
      'bad_domain',
      `${domain} is on the list of public e-mail providers, where anyone can get an address, so an address there cannot show that you speak for an employer. Submit with your company's own domain; if ${domain} is your company's and its addresses are given to staff only, ask the operator of this service to accept it.`,
      { field: 'company_domain' },
    );
  }
  return domain;
}

function hostWithin(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The apply URL: an absolute http(s) URL without credentials, on the company's domain (or a subdomain)
 * or on a known ATS host (the hosts every connector declares), as the quality gate accepts for a
 * company's own careers page. Without a company domain (undefined: that field was refused) only the
 * form of the address is checked, and its messages' example is on example.com.
 * @throws ApiError bad_apply_url.
 */
export function checkApplyUrl(input: string, companyDomain: string | undefined): string {
  const example = `e.g. https://${companyDomain ?? 'example.com'}/careers/apply or your board on a known applicant-tracking system`;
  if (!input || !URL.canParse(input)) throw new ApiError('bad_apply_url', `"apply_url" must be the full address of your application page, ${example}.`, { field: 'apply_url' });
  const url = new URL(input);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.port) {
    throw new ApiError('bad_apply_url', `"apply_url" must be an http or https address without user name, password or port, ${example}.`, { field: 'apply_url' });
  }
  if (companyDomain === undefined) return url.href;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const ats = applyHosts('career_site').anyAts;
  if (!hostWithin(host, companyDomain) && !ats.some((d) => hostWithin(host, d))) {
    throw new ApiError('bad_apply_url', `"apply_url" must be on ${companyDomain} or a known applicant-tracking system (such as Ashby, Greenhouse or Lever); ${host} is neither.`, { field: 'apply_url' });
  }
  return url.href;
}

function descriptionOf(body: Record<string, unknown>): string {
  const description = (rawText(body, 'description', SUBMISSION_LIMITS.description) ?? '').replace(/\r\n?/g, '\n').replace(CONTROL, '').trim();
  if (description.length < 20) throw new ApiError('bad_input', '"description" is required: describe the job in at least 20 characters.', { field: 'description' });
  return description;
}

/** Check the vacancy fields into `errors`; the content when none of them was refused. */
function checkContent(body: Record<string, unknown>, companyDomain: string | undefined, errors: FieldErrors): SubmissionContent | undefined {
  const title = errors.check(() => requiredLine(body, 'title', SUBMISSION_LIMITS.title, 'Backend Engineer'));
  const company = errors.check(() => requiredLine(body, 'company', SUBMISSION_LIMITS.company, 'Example Ltd'));
  const location = errors.check(() => requiredLine(body, 'location', SUBMISSION_LIMITS.location, 'Berlin, Germany or Remote (EU)'));
  const employmentType: EmploymentType | null | undefined = errors.check(() => choice(body, 'employment_type', EMPLOYMENT_TYPES, true));
  const remote: Remote | null | undefined = errors.check(() => choice(body, 'remote', REMOTE_VALUES, false));
  const description = errors.check(() => descriptionOf(body));
  const applyUrl = errors.check(() => checkApplyUrl(lineField(body, 'apply_url', SUBMISSION_LIMITS.applyUrl), companyDomain));
  const pay = salary(body, errors);
  if (title === undefined || company === undefined || location === undefined || !employmentType || remote === undefined) return undefined;
  if (description === undefined || applyUrl === undefined || pay === undefined) return undefined;
  return { company_name: company, title, location, employment_type: employmentType, remote, description, apply_url: applyUrl, ...pay };
}

/**
 * Check the vacancy fields of a submission or an edit (form or JSON body).
 * @throws FieldsRefused (an ApiError: bad_input, a missing, too long or malformed field, named in the
 *         message, or bad_apply_url), listing every refused field.
 */
export function parseContent(body: Record<string, unknown>, companyDomain: string): SubmissionContent {
  const errors = new FieldErrors();
  const content = checkContent(body, companyDomain, errors);
  errors.throwIfAny();
  return content!;
}

/**
 * Check a new submission: the vacancy, the company's domain and an address at it (the domain or a
 * subdomain). Nothing is stored by a refused submission.
 * @param employerDomains company domains accepted although public e-mail providers (see {@link SubmissionDeskDeps.employerDomains}).
 * @throws FieldsRefused (an ApiError: bad_input, bad_domain, bad_email, email_not_at_domain or
 *         bad_apply_url: the company domain's error when it has one, as the other checks need it),
 *         listing every refused field.
 */
export function parseSubmission(body: Record<string, unknown>, employerDomains: ReadonlySet<string> = new Set()): ParsedSubmission {
  const errors = new FieldErrors();
  const companyDomain = errors.check(() => companyDomainOf(body, employerDomains));
  const content = checkContent(body, companyDomain, errors);
  const email = normalizeEmail(body.email);
  if (!email) errors.add(new ApiError('bad_email', '"email" must be your e-mail address at the company, such as hr@example.com.', { field: 'email' }));
  else if (companyDomain !== undefined && !hostWithin(emailDomain(email), companyDomain)) {
    errors.add(new ApiError('email_not_at_domain', `The verification goes to an address at ${companyDomain}; ${email} is not one.`, { field: 'email' }));
  }
  errors.throwIfAny();
  return { content: content!, email: email!, companyDomain: companyDomain! };
}

// ---------------------------------------------------------------------------------------------
// Tokens of the edit-or-close link: random, only the SHA-256 stored, compared by index probe.
// ---------------------------------------------------------------------------------------------

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function newManageToken(): { token: string; hash: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: createHash('sha256').update(token, 'utf8').digest() };
}

function manageHash(token: unknown): Buffer | undefined {
  return typeof token === 'string' && TOKEN.test(token) ? createHash('sha256').update(token, 'utf8').digest() : undefined;
}

const LINK_INVALID = 'This link is unknown or no longer valid: use the newest link we e-mailed you.';

// ---------------------------------------------------------------------------------------------
// The desk.
// ---------------------------------------------------------------------------------------------

/** Submissions from the form to the ledger and back; one per process (serve, the CLI, tests). */
export class SubmissionDesk {
  readonly #deps: SubmissionDeskDeps;
  readonly #fx: () => Promise<FxRates>;
  readonly #employerDomains: ReadonlySet<string>;

  constructor(deps: SubmissionDeskDeps) {
    this.#deps = deps;
    this.#employerDomains = new Set((deps.employerDomains ?? []).map((d) => bareDomain(d)).filter((d): d is string => d !== undefined));
    const bundled = loadFxRates();
    this.#fx = deps.fx ?? (() => currentFxRates(deps.db, bundled));
  }

  /** {@link parseSubmission}, for the website's port. */
  parse(body: Record<string, unknown>): ParsedSubmission {
    return parseSubmission(body, this.#employerDomains);
  }

  /**
   * Store a checked submission as pending and e-mail its verification link.
   * @throws ApiError unavailable when the e-mail cannot be sent (then nothing stays stored).
   */
  async submit(parsed: ParsedSubmission, now: Date = new Date()): Promise<void> {
    const { db, siteUrl, linkTtlSeconds } = this.#deps;
    const id = await insertSubmission(db, { ...parsed.content, email: parsed.email, company_domain: parsed.companyDomain }, now);
    const token = await issueEmailToken(db, 'submission', parsed.email, id, linkTtlSeconds, now);
    const link = `${siteUrl}/submit/verify?token=${token}`;
    try {
      await this.#send(parsed.email, submissionVerifyMail(link, { title: parsed.content.title, company: parsed.content.company_name }, linkTtlSeconds), link);
    } catch (error) {
      // Nothing stays stored by a submission that could not be verified.
      await deleteSubmission(db, id).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Spend a verification link: publish the submission (enrichment, quality gate, ledger, `created` on
   * the feed when served) and e-mail the edit-or-close link.
   * @throws ApiError link_invalid when the link is unknown, used or expired.
   */
  async verify(token: unknown, now: Date = new Date()): Promise<PublishedSubmission> {
    const { db } = this.#deps;
    const spent = await redeemEmailToken(db, token, 'submission', now);
    const row = spent?.subject ? await findSubmission(db, spent.subject) : undefined;
    if (!row || row.status !== 'pending') throw new ApiError('link_invalid', 'This verification link is unknown, already used or expired: submit the vacancy again.');
    const published = await this.#publish(row, now);
    const manage = newManageToken();
    if (!(await markSubmissionOpen(db, row.id, { now, jobId: published.jobId, manageHash: manage.hash }))) {
      throw new ApiError('link_invalid', 'This verification link was already used.');
    }
    const link = this.#manageLink(manage.token);
    try {
      await this.#send(row.email, submissionPublishedMail(link, { title: row.title, company: row.company_name }, RECONFIRM_DAYS), link);
    } catch (error) {
      // Published all the same; the reminder brings a fresh link.
      this.#deps.log.error({ err: error, submission: row.id }, 'the edit-or-close link could not be e-mailed');
    }
    return published;
  }

  /** The submission an edit-or-close link opens, or undefined (unknown or replaced link). Reads only. */
  async view(token: unknown): Promise<SubmissionView | undefined> {
    const hash = manageHash(token);
    const row = hash ? await findSubmissionByManageHash(this.#deps.db, hash) : undefined;
    return row ? toView(row) : undefined;
  }

  /**
   * Edit an open submission: the new content goes through enrichment and the gate again (`updated` on
   * the feed when served content changed); it counts as a confirmation.
   * @throws ApiError link_invalid, submission_closed, or the field errors of {@link parseContent}.
   */
  async update(token: unknown, body: Record<string, unknown>, now: Date = new Date()): Promise<PublishedSubmission> {
    const row = await this.#open(token);
    const content = parseContent(body, row.company_domain);
    await updateSubmissionContent(this.#deps.db, row.id, content, now);
    return this.#publish({ ...row, ...content }, now);
  }

  /** The submitter says the vacancy is still open: its row is re-verified now. @throws ApiError link_invalid, submission_closed. */
  async confirm(token: unknown, now: Date = new Date()): Promise<PublishedSubmission> {
    const row = await this.#open(token);
    await confirmSubmissionRow(this.#deps.db, row.id, now);
    return this.#publish(row, now);
  }

  /** The submitter closes the vacancy: `expired_upstream` at `now`, `delisted` when it was served. @throws ApiError link_invalid, submission_closed. */
  async close(token: unknown, now: Date = new Date()): Promise<{ submissionId: string; jobId: string | null }> {
    const row = await this.#open(token);
    const jobId = await this.#jobId(row);
    if (!(await endSubmission(this.#deps.db, row.id, ['open'], 'closed', now))) throw closedError(row);
    if (jobId) await closeProvedDead(this.#deps.db, [jobId], now);
    return { submissionId: row.id, jobId };
  }

  /**
   * The operator rejects a submission: a pending one is never published; a published one is withheld
   * (`quality_removed`, rule `submission.rejected`; `withdrawn` when it was served), open or not.
   * @returns false when there is no such submission or it was rejected already.
   */
  async reject(id: string, reason: string, now: Date = new Date()): Promise<boolean> {
    const { db } = this.#deps;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return false;
    const row = await findSubmission(db, id);
    if (!row || row.status === 'rejected') return false;
    const why = reason.replace(CONTROL, '').trim().slice(0, SUBMISSION_LIMITS.rejectReason) || 'rejected by the operator';
    if (!(await endSubmission(db, id, ['pending', 'open', 'closed', 'lapsed'], 'rejected', now, why))) return false;
    if (row.job_id) await this.#publish(row, now, { verdict: 'quality_removed', ruleId: 'submission.rejected' });
    return true;
  }

  /** Submissions for the operator, newest first. */
  async list(options: { status?: SubmissionRow['status']; limit?: number } = {}): Promise<SubmissionRow[]> {
    return listSubmissions(this.#deps.db, { status: options.status, limit: options.limit ?? 100 });
  }

  /**
   * The lifecycle's clock work, run hourly by the cluster's `submission-reminders` chore (src/chores/chores.ts) and by `jobledger submissions sweep`: e-mail the
   * re-confirmation reminder to open submissions unconfirmed for {@link RECONFIRM_DAYS} days (with a
   * new edit-or-close link), close `not_seen` those unconfirmed for {@link GRACE_DAYS} more, and delete
   * pending submissions whose verification link expired unused.
   */
  async sweep(now: Date = new Date(), batch = 200): Promise<{ reminded: number; lapsed: number; discarded: number }> {
    const { db, log } = this.#deps;
    let lapsed = 0;
    for (const row of await submissionsToLapse(db, new Date(now.getTime() - (RECONFIRM_DAYS + GRACE_DAYS) * DAY_MS), batch)) {
      if (!(await endSubmission(db, row.id, ['open'], 'lapsed', now))) continue;
      const jobId = await this.#jobId(row);
      if (jobId) await closeNotSeenRows(db, [jobId], now);
      lapsed += 1;
    }
    let reminded = 0;
    for (const row of await submissionsToRemind(db, new Date(now.getTime() - RECONFIRM_DAYS * DAY_MS), batch)) {
      const manage = newManageToken();
      const link = this.#manageLink(manage.token);
      try {
        await this.#send(row.email, submissionReminderMail(link, { title: row.title, company: row.company_name }, GRACE_DAYS), link);
      } catch (error) {
        log.warn({ err: error, submission: row.id }, 'reminder not sent; retried on the next sweep');
        continue;
      }
      await rotateManageToken(db, row.id, manage.hash, now);
      reminded += 1;
    }
    const discarded = await deleteStalePendingSubmissions(db, new Date(now.getTime() - Math.max(this.#deps.linkTtlSeconds * 1000, DAY_MS)));
    if (reminded + lapsed + discarded > 0) log.info({ reminded, lapsed, discarded }, 'submissions swept');
    return { reminded, lapsed, discarded };
  }

  /** The open submission of an edit-or-close link. */
  async #open(token: unknown): Promise<SubmissionRow> {
    const hash = manageHash(token);
    const row = hash ? await findSubmissionByManageHash(this.#deps.db, hash) : undefined;
    if (!row) throw new ApiError('link_invalid', LINK_INVALID);
    if (row.status !== 'open') throw closedError(row);
    return row;
  }

  async #jobId(row: SubmissionRow): Promise<string | null> {
    return row.job_id ?? (await jobOfSubmission(this.#deps.db, SUBMISSION_PROVIDER, row.id)) ?? null;
  }

  /**
   * Write the submission into the ledger as a crawl of one posting would: enrich, judge (or take the
   * operator's `override`), apply as a partial update with no crawl target (`target_id` NULL: no
   * crawl lists it, so no absence rule runs over it; its lifecycle is the sweep's).
   */
  async #publish(row: SubmissionRow, now: Date, override?: QualityVerdict): Promise<PublishedSubmission> {
    const { db } = this.#deps;
    const posting = toSourcePosting(row, now);
    const provider = { id: SUBMISSION_PROVIDER, sourceType: 'career_site', providerType: 'direct' } as const;
    const job = enrichPosting(posting, provider, await this.#fx());
    const optouts = await loadActiveOptouts(db);
    const verdict =
      override ??
      judgePosting(job, {
        providerId: SUBMISSION_PROVIDER,
        redistributable: true,
        discoveryOnly: false,
        board: SUBMISSION_BOARD,
        companyDomain: row.company_domain,
        optedOut: isOptedOut(optouts, { name: job.companyName, domain: job.companyDomain }),
        now,
        // A submitted vacancy is the employer's own page: judged as a careers page is.
        hosts: applyHosts('career_site'),
      });
    await applyCrawl(db, { targetId: null, providerId: SUBMISSION_PROVIDER, postings: [{ job, verdict }], now });
    const jobId = await jobOfSubmission(db, SUBMISSION_PROVIDER, row.id);
    if (!jobId) throw new Error(`the ledger row of submission ${row.id} was not written`);
    return { submissionId: row.id, jobId, served: verdict.verdict === 'live' && job.posterType === undefined, verdict };
  }

  #manageLink(token: string): string {
    return `${this.#deps.siteUrl}/submit/manage?token=${token}`;
  }

  async #send(to: string, mail: { subject: string; text: string }, link: string): Promise<void> {
    try {
      await this.#deps.mailer.send({ to, ...mail });
    } catch (error) {
      this.#deps.log.error({ err: error, subject: mail.subject }, 'e-mail could not be sent');
      throw new ApiError('unavailable', 'The e-mail could not be sent just now; try again in a minute.', { headers: { 'Retry-After': '60' } });
    }
    // No mail server (the embedded default): the person at the console follows the logged link.
    if (this.#deps.logLinks) this.#deps.log.info({ to, link }, 'submission link (no JOBLEDGER_SMTP_URL: the e-mail is in the outbox)');
  }
}

function closedError(row: SubmissionRow): ApiError {
  const what = row.status === 'closed' ? 'was closed' : row.status === 'lapsed' ? 'was taken down because it was not confirmed in time' : row.status === 'rejected' ? 'was taken down by the operator' : 'is not published yet';
  return new ApiError('submission_closed', `This vacancy ${what}; submit it again to publish it.`);
}

function toView(row: SubmissionRow): SubmissionView {
  return {
    id: row.id,
    status: row.status,
    email: row.email,
    companyDomain: row.company_domain,
    content: {
      company_name: row.company_name,
      title: row.title,
      location: row.location,
      employment_type: row.employment_type,
      remote: row.remote,
      description: row.description,
      apply_url: row.apply_url,
      salary_min: row.salary_min,
      salary_max: row.salary_max,
      salary_currency: row.salary_currency,
      salary_period: row.salary_period,
    },
    jobId: row.job_id,
    confirmedAt: row.confirmed_at,
    lapsesAt: row.status === 'open' && row.confirmed_at ? new Date(row.confirmed_at.getTime() + (RECONFIRM_DAYS + GRACE_DAYS) * DAY_MS) : null,
  };
}

/**
 * The submission as a source posting: every field is what the employer stated (so enrichment marks it
 * `published`); `posted_at` is when the employer's verification published it.
 */
function toSourcePosting(row: SubmissionRow, now: Date): SourcePosting {
  return {
    sourcePostingId: row.id,
    title: row.title,
    company: { name: row.company_name, domain: row.company_domain },
    location: row.location,
    locations: [{ text: row.location }],
    ...(row.remote ? { remoteFlag: row.remote as Remote } : {}),
    employmentType: row.employment_type,
    postedAt: (row.verified_at ?? now).toISOString(),
    descriptionText: row.description,
    ...(row.salary_min !== null && row.salary_currency && row.salary_period
      ? { salary: { min: row.salary_min, ...(row.salary_max !== null ? { max: row.salary_max } : {}), currency: row.salary_currency, period: row.salary_period as (typeof SALARY_PERIODS)[number] } }
      : {}),
    applyUrl: row.apply_url,
  };
}
