/**
 * The checkout routes (issue 14; spec: Website routes, `checkout`): `POST /public/checkout` starts a
 * purchase of a paid plan for one of the signed-in account's keys and redirects to the payment
 * provider; `POST /public/checkout/webhook` takes the provider's signed notifications. Both are thin:
 * the billing service (`src/billing/billing.ts`) decides and records.
 *
 * The seam with the website (docs/website.md "Billing"): who is signed in is the site's business.
 * The site never imports this file: `http/app.ts` hands it {@link checkoutStartRoute} as a plugin
 * factory, and the site hands back {@link CheckoutRouteOptions.signedInAccount}, which checks the session cookie and
 * the form's CSRF token and returns the account id, or throws the catalogue's error; until it does,
 * every checkout answers 401 `session_required`. Ownership of the key is checked here, against that
 * account.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import type { Billing } from '../../billing/billing.ts';
import { ApiError } from '../../domain/errors.ts';
import { isUuid } from '../query-values.ts';
import { errorResponses } from '../schemas/errors.ts';

/**
 * The site's session check for a state-changing request: the signed-in account's id
 * (`accounts.id`), after verifying the session cookie and the CSRF token.
 * @throws ApiError (e.g. 401 `session_required`, 403 for a bad CSRF token) to refuse the request.
 */
export type SignedInAccount = (request: FastifyRequest, reply: FastifyReply) => Promise<string>;

/** Where the payment provider sends the buyer back to, for one purchase. */
export type CheckoutReturnUrls = (request: FastifyRequest, purchase: { keyId: string; plan: string }) => { successUrl: string; cancelUrl: string };

export interface CheckoutRouteOptions {
  billing: Billing;
  /** The site's session check; absent (no website on this server): every checkout answers 401 `session_required`. */
  signedInAccount?: SignedInAccount;
  /** Return pages; absent: `/account?checkout=success|cancelled` on the origin the request came to. */
  returnUrls?: CheckoutReturnUrls;
}

/** Largest notification body accepted, bytes (Stripe's events are a few KiB). */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

const CheckoutBody = Type.Object({
  key_id: Type.String({ description: 'Id (uuid) of one of your keys, as the account page lists them.' }),
  plan: Type.String({ description: 'Plan to buy: a paid plan of /public/plans (growth, signal, scale).' }),
});

const CheckoutStarted = Type.Object({
  checkout_url: Type.String({ format: 'uri', description: "The payment provider's page for this purchase; also the Location header." }),
});

const NotificationReceipt = Type.Object({
  received: Type.Literal(true),
  duplicate: Type.Boolean({ description: 'True when this event id was acted on before; nothing changed now.' }),
});

function noSite(): never {
  throw new ApiError('session_required', 'Sign in on the website to buy a plan for one of your keys.');
}

function defaultReturnUrls(request: FastifyRequest): { successUrl: string; cancelUrl: string } {
  const origin = `${request.protocol}://${request.host}`;
  return { successUrl: `${origin}/account?checkout=success`, cancelUrl: `${origin}/account?checkout=cancelled` };
}

/** The two checkout routes, registered under `/public`. */
export function checkoutRoutes(options: CheckoutRouteOptions) {
  return async (app: FastifyInstance) => {
    await app.register(checkoutStartRoute(options));
    await app.register(checkoutWebhookRoute(options));
  };
}

/**
 * `POST /checkout` alone (under `/public`): with a website, `http/app.ts` hands this to the site as its
 * `checkoutRoute` (site.ts `CheckoutRoute`); the site registers it inside its own scope, where the
 * session and CSRF plugins live, with its session check as `signedInAccount`. Same schema either way,
 * so the OpenAPI document does not depend on whether the website is mounted.
 */
export function checkoutStartRoute(options: CheckoutRouteOptions) {
  const signedInAccount = options.signedInAccount ?? noSite;
  const returnUrls = options.returnUrls ?? defaultReturnUrls;
  return async (app: FastifyInstance) => {
    // Forms work without JavaScript: an HTML form posts application/x-www-form-urlencoded.
    if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) {
      app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });
    }

    app.withTypeProvider<TypeBoxTypeProvider>().post(
      '/checkout',
      {
        attachValidation: true,
        schema: {
          operationId: 'startCheckout',
          tags: ['website'],
          summary: 'Buy a paid plan for one of your keys: redirects (303) to the payment page',
          description:
            'Website route (signed session and CSRF token, no API key). Takes a JSON body or an HTML form. Answers 303 See Other to the payment provider; the plan changes when the provider confirms the payment (POST /public/checkout/webhook). 501 `payments_not_configured` when this server sells no plans.',
          security: [],
          body: CheckoutBody,
          response: { 303: CheckoutStarted, ...errorResponses(400, 401, 403, 404, 409, 422, 429, 500, 501, 503) },
        },
      },
      async (request, reply) => {
        if (!options.billing.offersUpgrades()) {
          throw new ApiError('payments_not_configured', 'This server sells no plans: no payment provider is configured. The operator can change a key\'s plan.');
        }
        const accountId = await signedInAccount(request, reply);
        const body = (request.body ?? {}) as Partial<Static<typeof CheckoutBody>>;
        if (request.validationError || typeof body.key_id !== 'string' || typeof body.plan !== 'string') {
          throw new ApiError('bad_request', 'The body must carry key_id (the id of one of your keys) and plan (a paid plan of /public/plans).');
        }
        const keyId = body.key_id.trim().toLowerCase();
        const plan = body.plan.trim().toLowerCase();
        // A malformed id names no key: the same 404 as an unknown one, without asking the database.
        if (!isUuid(keyId)) throw new ApiError('not_found', 'None of your keys has this id.');
        const started = await options.billing.startCheckout({ keyId, plan, accountId, ...returnUrls(request, { keyId, plan }) });
        return reply.code(303).header('Location', started.url).send({ checkout_url: started.url });
      },
    );

  };
}

/** `POST /checkout/webhook` alone (under `/public`): the provider's notifications, on the API's scope. */
export function checkoutWebhookRoute(options: CheckoutRouteOptions) {
  return async (app: FastifyInstance) => {
    await app.register(async (webhook) => {
      // The signature covers the exact bytes sent: the body reaches the handler unparsed.
      webhook.removeAllContentTypeParsers();
      webhook.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) => done(null, body));
      webhook.withTypeProvider<TypeBoxTypeProvider>().post(
        '/checkout/webhook',
        {
          // The provider's deliveries come in bursts from a few addresses; the signature, not a rate, guards it.
          config: { keylessLimit: false },
          schema: {
            operationId: 'checkoutWebhook',
            tags: ['website'],
            summary: "The payment provider's signed notifications (Stripe webhook)",
            description:
              'Called by Stripe, not by people. The raw JSON body must carry a valid Stripe-Signature header for the configured signing secret; a bad signature answers 400 `bad_signature` and changes nothing. An event id acted on before answers 200 with `duplicate: true` and changes nothing. 503 when Stripe could not be read back: nothing is recorded and Stripe retries.',
            security: [],
            response: { 200: NotificationReceipt, ...errorResponses(400, 500, 501, 503) },
          },
        },
        async (request): Promise<Static<typeof NotificationReceipt>> => {
          const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const receipt = await options.billing.handleNotification(raw, request.headers);
          return { received: true, duplicate: receipt.duplicate };
        },
      );
    });
  };
}
