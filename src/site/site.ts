/**
 * The website (issue 14; spec: Website routes, Authentication items 5, 10, 11; API key state): pages at
 * `/` and the form routes under `/public/...` on the same server. One encapsulated Fastify scope with
 * its own security headers (`@fastify/helmet`, a strict CSP), cookies and signed sessions
 * (`@fastify/cookie`, `@fastify/session` on PostgreSQL), CSRF tokens (`@fastify/csrf-protection`),
 * form bodies (`@fastify/formbody`) and server-rendered pages (`@fastify/view` with Eta, escaping by
 * default). None of it touches the data API's routes. Routes and their answers: docs/website.md.
 */
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import session from '@fastify/session';
import view from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import path from 'node:path';
import { FormLimiter, type FormLimitSettings } from '../accounts/form-limits.ts';
import type { CounterStore } from '../access/counters.ts';
import type { RequestLimiter } from '../access/request-limits.ts';
import type { Billing } from '../billing/billing.ts';
import { ApiError } from '../domain/errors.ts';
import { sendApiError, toApiError } from '../http/errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import { humanCheck } from './altcha.ts';
import { apiDocsRoutes } from './api-docs.ts';
import { assetRoutes } from './assets.ts';
import { authRoutes } from './auth-routes.ts';
import { FORM_BODY_LIMIT, fromBrowserForm, renderPage, sessionAccount, type SiteContext } from './context.ts';
import { formRoutes } from './form-routes.ts';
import { submissionRoutes, type SubmissionService } from './submission-routes.ts';
import { pageRoutes } from './pages.ts';
import { postgresSessionStore } from './session-store.ts';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DB } from '../store/schema.ts';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'jl_session';
/** Name of the CSRF secret cookie. */
export const CSRF_COOKIE = 'jl_csrf';

/** The website's settings (config `site`, docs/website.md) and the services it shares with the API. */
export interface SiteOptions {
  siteUrl: string;
  /** At least 32 characters: signs cookies, challenges and unsubscribe links. */
  secret: string;
  sessionSeconds: number;
  linkTtlSeconds: number;
  mailer: Mailer;
  operatorEmail: string | undefined;
  altcha: { cost: number; maxCounter: number };
  formLimits?: FormLimitSettings;
  /** Direct submissions (src/site/submission-routes.ts); absent: no submission form. */
  submissions?: SubmissionService;
}

/**
 * What the site offers billing's checkout route (docs/website.md "Billing"): who is buying, and where
 * the payment provider sends them back. The route itself is not the site's: see {@link CheckoutRoute}.
 */
export interface SiteCheckoutSeam {
  /**
   * The signed-in account's id (`accounts.id`), after checking the session cookie and the form's CSRF token.
   * @throws ApiError 401 `session_required` without a session, 403 `csrf_failed` for a bad token.
   */
  signedInAccount(request: FastifyRequest, reply: FastifyReply): Promise<string>;
  /** Absolute return pages on `JOBLEDGER_SITE_URL` for one purchase. */
  returnUrls(request: FastifyRequest, purchase: { keyId: string; plan: string }): { successUrl: string; cancelUrl: string };
}

/**
 * `POST /checkout` (mounted under `/public`) built around the site's seam: the composition root
 * (`http/app.ts`) hands in billing's route, so the site never imports the data API's routes and
 * billing never learns about sessions. It runs inside the site's scope, where the session and CSRF
 * plugins live, and keeps its place in the OpenAPI document (it declares an `operationId`).
 */
export type CheckoutRoute = (seam: SiteCheckoutSeam) => FastifyPluginAsync;

/** What the app hands the website besides its settings. */
export interface SiteServices {
  db: Kysely<DB>;
  log: Logger;
  docsUrl: string;
  counters: CounterStore;
  requestLimiter: RequestLimiter;
  /** Billing (src/billing): the account page offers upgrades only when it sells plans. */
  billing: Billing;
  /** Billing's `POST /public/checkout`, registered with the site's session check (see {@link CheckoutRoute}). */
  checkoutRoute: CheckoutRoute;
}

/**
 * Whether a route registered in the site's scope belongs to the data API's OpenAPI document: only a
 * route that declares an `operationId` (billing's checkout). The site's own pages and forms never do,
 * and stay out (spec: Website routes are not part of the data API).
 */
export function inContract(route: { schema?: unknown }): boolean {
  return typeof (route.schema as { operationId?: unknown } | undefined)?.operationId === 'string';
}

/** Map what the site's plugins throw to the catalogue. */
function siteError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as FastifyError).code ?? '';
  if (code.startsWith('FST_CSRF_')) return new ApiError('csrf_failed', 'The form\'s security token is missing or wrong: reload the page and send the form again.');
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError('payload_too_large', `The form is larger than ${FORM_BODY_LIMIT / 1024} KiB.`);
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new ApiError('unsupported_media_type', 'Send the form as application/x-www-form-urlencoded or JSON.');
  return toApiError(error);
}

/** Register the website on `app` (an encapsulated scope). */
export function sitePlugin(options: SiteOptions, services: SiteServices) {
  return async (app: FastifyInstance) => {
    if (options.secret.length < 32) throw new Error('the site secret must have at least 32 characters');
    const secure = options.siteUrl.startsWith('https:');
    const ctx: SiteContext = {
      db: services.db,
      log: services.log.child({ component: 'site' }),
      docsUrl: services.docsUrl,
      siteUrl: options.siteUrl,
      secret: options.secret,
      linkTtlSeconds: options.linkTtlSeconds,
      mailer: options.mailer,
      operatorEmail: options.operatorEmail,
      human: humanCheck(options.secret, options.altcha),
      formLimits: new FormLimiter(services.counters, options.formLimits),
      requestLimiter: services.requestLimiter,
      logLinks: options.mailer.kind === 'outbox',
      billing: services.billing,
    };
    // The website's own routes stay out of the data API's OpenAPI document (billing's checkout stays in).
    app.addHook('onRoute', (route) => {
      if (!inContract(route)) route.schema = { ...route.schema, hide: true };
    });
    await app.register(helmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'none'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          workerSrc: ["'self'"],
          fontSrc: ["'self'"],
          // The checkout form's 303 leads to the payment provider's page: browsers check that redirect
          // against form-action too, so its origins are allowed (none without a provider).
          formAction: ["'self'", ...services.billing.paymentPageOrigins()],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
          ...(secure ? { upgradeInsecureRequests: [] } : {}),
        },
      },
      strictTransportSecurity: secure ? { maxAge: 31_536_000 } : false,
      referrerPolicy: { policy: 'no-referrer' },
    });
    await app.register(cookie, { secret: `cookie:${options.secret}` });
    await app.register(session, {
      secret: `session:${options.secret}`,
      cookieName: SESSION_COOKIE,
      cookie: { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: options.sessionSeconds * 1000 },
      saveUninitialized: false,
      rolling: false,
      store: postgresSessionStore(services.db, options.sessionSeconds),
    });
    await app.register(csrf, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: CSRF_COOKIE,
      cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure, signed: true },
    });
    await app.register(formbody, { bodyLimit: FORM_BODY_LIMIT });
    // Forms and JSON only: a text/plain body (which a cross-site page can send without a preflight) is refused.
    app.removeContentTypeParser('text/plain');
    await app.register(view, {
      engine: { eta: new Eta({ views: path.join(import.meta.dirname, 'views'), cache: true, autoEscape: true }) },
      templates: path.join(import.meta.dirname, 'views'),
      production: true,
    });

    app.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const apiError = siteError(error);
      if (apiError.status >= 500) request.log.error({ err: error }, 'website request failed');
      if (request.method === 'GET' || fromBrowserForm(request)) {
        for (const [name, value] of Object.entries(apiError.headers)) reply.header(name, value);
        return renderPage(request, reply, 'error', { title: 'Something went wrong', status: apiError.status, code: apiError.code, message: apiError.message }, apiError.status);
      }
      return sendApiError(reply, ctx.docsUrl, apiError);
    });

    await app.register(assetRoutes());
    await app.register(apiDocsRoutes()); // /docs: the API reference (issue 19)
    await app.register(pageRoutes(ctx));
    await app.register(authRoutes(ctx));
    await app.register(formRoutes(ctx));
    if (options.submissions) await app.register(submissionRoutes(ctx, options.submissions));
    // Billing's checkout (docs/website.md "Billing"): the form's CSRF token and this site's session
    // say who buys; the provider returns the buyer to the account page on JOBLEDGER_SITE_URL.
    await app.register(
      services.checkoutRoute({
        signedInAccount: async (request, reply) => {
          await new Promise<void>((resolve, reject) => {
            app.csrfProtection(request, reply, (error?: Error) => (error ? reject(error) : resolve()));
          });
          return sessionAccount(request);
        },
        returnUrls: () => ({ successUrl: `${options.siteUrl}/account?checkout=success`, cancelUrl: `${options.siteUrl}/account?checkout=cancelled` }),
      }),
      { prefix: '/public' },
    );
  };
}
