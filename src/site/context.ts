/**
 * What every part of the website shares: its settings and services, and how an answer is given —
 * a page for a browser's form post, the catalogue's JSON for an API caller (docs/website.md).
 */
import type { Billing } from '../billing/billing.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { normalizeEmail } from '../accounts/email-address.ts';
import type { FormLimiter } from '../accounts/form-limits.ts';
import type { RequestLimiter } from '../access/request-limits.ts';
import { ApiError } from '../domain/errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { DB } from '../store/schema.ts';
import type { HumanCheck } from './altcha.ts';

/** Largest form body accepted, bytes (a contact message of 5,000 characters fits). */
export const FORM_BODY_LIMIT = 16 * 1024;

export interface SiteContext {
  db: Kysely<DB>;
  log: Logger;
  docsUrl: string;
  /** Absolute base of links in e-mails, no trailing slash. */
  siteUrl: string;
  /** Signing secret (unsubscribe links). */
  secret: string;
  linkTtlSeconds: number;
  mailer: Mailer;
  operatorEmail: string | undefined;
  human: HumanCheck;
  formLimits: FormLimiter;
  requestLimiter: RequestLimiter;
  /** Whether e-mails go to the outbox, so sign-in links are printed in the log too. */
  logLinks: boolean;
  /** Billing: which paid plans the account page offers (none without a payment provider). */
  billing: Billing;
}

/** True when the request is a browser's HTML form post (answered with a page), false for an API caller (JSON). */
export function fromBrowserForm(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/** The request body as a record of fields (form or JSON); anything else is an empty record. */
export function fields(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/**
 * Read a public form that sends an e-mail, guarded the one way every such form is: the ALTCHA human
 * check on `altcha` first, then `parse` reads the fields, then the per-client and per-address form
 * limit on the address `parse` names (so a bot or a flood never reaches the mailer).
 * @throws ApiError from the human check, `parse` (its catalogue error) or the form limits.
 */
export async function guardedForm<T extends { email: string }>(ctx: SiteContext, request: FastifyRequest, parse: (body: Record<string, unknown>) => T): Promise<T> {
  const body = fields(request);
  await ctx.human.check(body.altcha);
  const parsed = parse(body);
  await ctx.formLimits.take(request.ip, parsed.email);
  return parsed;
}

/** A form's `email` field, normalized. @throws ApiError bad_email when it is not an e-mail address. */
export function emailField(body: Record<string, unknown>): { email: string } {
  const email = normalizeEmail(body.email);
  if (!email) throw new ApiError('bad_email', '"email" must be an e-mail address such as you@example.com.');
  return { email };
}

/**
 * The answer once a form's link is mailed: for a browser the "check your e-mail" page naming `email`
 * and what the link is for (`purpose`), with `pageStatus`; for an API caller 202 `{status: 'sent', message}`.
 */
export async function linkSent(request: FastifyRequest, reply: FastifyReply, sent: { email: string; purpose: string; message: string }, pageStatus = 200): Promise<FastifyReply> {
  if (fromBrowserForm(request)) return renderPage(request, reply, 'check-email', { title: 'Check your e-mail', email: sent.email, purpose: sent.purpose }, pageStatus);
  return reply.code(202).send({ status: 'sent', message: sent.message });
}

/** A mailed link's token from the query string (first occurrence), or '' when absent or too long. */
export function queryToken(request: FastifyRequest): string {
  const token = (request.query as Record<string, unknown> | undefined)?.token;
  return typeof token === 'string' && token.length <= 600 ? token : '';
}

/**
 * The handler of the page a mailed link opens: it only shows `text` and a button that posts the link's
 * token to `action`, so a mail scanner that fetches the link consumes nothing. `title` defaults to `heading`.
 */
export function confirmLinkPage(copy: { heading: string; text: string; action: string; button: string; title?: string }) {
  return async (request: FastifyRequest, reply: FastifyReply) => renderPage(request, reply, 'confirm-link', { title: copy.heading, ...copy, token: queryToken(request) });
}

/** Data every page template reads. */
export interface PageData {
  title: string;
  csrf: string;
  signedIn: boolean;
  [name: string]: unknown;
}

/** Render `page` with the shared data (a fresh CSRF token, the signed-in state); never cached. */
export async function renderPage(request: FastifyRequest, reply: FastifyReply, page: string, data: { title: string; [name: string]: unknown }, status = 200): Promise<FastifyReply> {
  const pageData: PageData = { csrf: reply.generateCsrf(), signedIn: Boolean(request.session.accountId), ...data };
  reply.code(status).header('Cache-Control', 'no-store').type('text/html; charset=utf-8');
  return reply.view(page, pageData);
}

/** The signed-in account id. @throws ApiError session_required without a valid session. */
export function sessionAccount(request: FastifyRequest): string {
  const accountId = request.session.accountId;
  if (!accountId) {
    throw new ApiError('session_required', 'Sign in first: key management needs the website session (an e-mailed sign-in link); an API key cannot manage keys.');
  }
  return accountId;
}

/** A text field of at most `max` characters, trimmed; absent is ''. @throws ApiError bad_input. */
export function textField(body: Record<string, unknown>, name: string, max: number): string {
  const value = body[name];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new ApiError('bad_input', `"${name}" must be text.`);
  if (value.length > max) throw new ApiError('bad_input', `"${name}" is longer than ${max} characters.`);
  return value.trim();
}
