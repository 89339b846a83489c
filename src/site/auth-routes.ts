/**
 * Sign-in and key self-service (spec: Website routes `auth/request`, `auth/verify`, key management;
 * Authentication items 5, 10, 11; API key state). Every route checks the CSRF token; the key routes
 * first need the session cookie (an API key is never read here), and touch only the session's
 * account's keys. A browser's form post gets a page, an API caller JSON (docs/website.md).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createFreeKey, keyName, renameAccountKey, revokeAccountKey, rotateAccountKey } from '../accounts/account-keys.ts';
import { completeSignIn, issueSignInToken } from '../accounts/sign-in.ts';
import { ApiError } from '../domain/errors.ts';
import { signInMail } from '../mail/messages.ts';
import { emailField, fields, FORM_BODY_LIMIT, fromBrowserForm, guardedForm, linkSent, renderPage, sessionAccount, type SiteContext } from './context.ts';
import { accountPageData } from './pages.ts';

/** The one answer to every accepted sign-in request, whether or not the address has an account. */
export const SIGN_IN_SENT = 'If this address can receive e-mail, a sign-in link is on its way. It works once, for a limited time.';

/** Send a mail, answering 503 (the same for every address) when the mail server fails. */
export async function sendMail(ctx: SiteContext, message: Parameters<SiteContext['mailer']['send']>[0]): Promise<void> {
  try {
    await ctx.mailer.send(message);
  } catch (error) {
    ctx.log.error({ err: error, subject: message.subject }, 'e-mail could not be sent');
    throw new ApiError('unavailable', 'The e-mail could not be sent just now; try again in a minute.', { headers: { 'Retry-After': '60' } });
  }
}

export function authRoutes(ctx: SiteContext) {
  return async (app: FastifyInstance) => {
    const form = { bodyLimit: FORM_BODY_LIMIT, preHandler: app.csrfProtection };
    const sessionForm = {
      bodyLimit: FORM_BODY_LIMIT,
      preHandler: [
        async (request: FastifyRequest) => {
          sessionAccount(request);
        },
        app.csrfProtection,
      ],
    };

    app.post('/public/auth/request', form, async (request, reply) => {
      const { email } = await guardedForm(ctx, request, emailField);
      const token = await issueSignInToken(ctx.db, email, ctx.linkTtlSeconds);
      const link = `${ctx.siteUrl}/signin/verify?token=${token}`;
      await sendMail(ctx, { to: email, ...signInMail(link, ctx.linkTtlSeconds) });
      // No mail server (the embedded default): the person at the console signs in with the logged link.
      if (ctx.logLinks) ctx.log.info({ to: email, link }, 'sign-in link (no JOBLEDGER_SMTP_URL: the e-mail is in the outbox)');
      return linkSent(request, reply, { email, purpose: 'a sign-in link', message: SIGN_IN_SENT });
    });

    app.post('/public/auth/verify', form, async (request, reply) => {
      const signedIn = await completeSignIn(ctx.db, fields(request).token);
      if (!signedIn) throw new ApiError('link_invalid', 'This sign-in link is unknown, already used or expired; ask for a new one at /signin.');
      // A new session id at sign-in: a cookie planted before cannot ride into the account.
      await request.session.regenerate();
      request.session.accountId = signedIn.accountId;
      await request.session.save();
      if (fromBrowserForm(request)) return reply.redirect('/account', 303);
      return reply.send({ status: 'signed_in', account_created: signedIn.created });
    });

    app.post('/public/auth/signout', form, async (request, reply) => {
      await request.session.destroy();
      if (fromBrowserForm(request)) return reply.redirect('/', 303);
      return reply.send({ status: 'signed_out' });
    });

    /**
     * A key-management form at `url`: the session's account, the change `act` makes to its keys, then the
     * account page with `page` (browser form) or `json` with `status` (default 200).
     */
    const keyAction = (
      url: string,
      act: (accountId: string, request: FastifyRequest<{ Params: { id: string } }>) => Promise<{ json: Record<string, unknown>; page: Record<string, unknown>; status?: number }>,
    ) =>
      app.post<{ Params: { id: string } }>(url, sessionForm, async (request, reply) => {
        const accountId = sessionAccount(request);
        const { json, page, status = 200 } = await act(accountId, request);
        if (fromBrowserForm(request)) return renderPage(request, reply, 'account', { ...(await accountPageData(ctx, accountId)), ...page });
        return reply.code(status).send(json);
      });

    keyAction('/public/auth/keys', async (accountId, request) => {
      const created = await createFreeKey(ctx.db, accountId, keyName(fields(request).name));
      return {
        status: 201,
        json: { id: created.id, key_prefix: created.keyPrefix, plan: created.planId, secret: created.secret },
        page: { secret: created.secret, secretPrefix: created.keyPrefix, notice: `Key ${created.keyPrefix} created.` },
      };
    });

    keyAction('/public/auth/keys/:id/rotate', async (accountId, request) => {
      const rotated = await rotateAccountKey(ctx.db, accountId, request.params.id);
      return {
        json: { id: rotated.id, key_prefix: rotated.keyPrefix, secret: rotated.secret },
        page: { secret: rotated.secret, secretPrefix: rotated.keyPrefix, notice: `Key ${rotated.keyPrefix} rotated: the old secret no longer works.` },
      };
    });

    keyAction('/public/auth/keys/:id/revoke', async (accountId, request) => {
      const revoked = await revokeAccountKey(ctx.db, accountId, request.params.id);
      return {
        json: { id: request.params.id, key_prefix: revoked.keyPrefix, status: 'revoked', revoked_at: revoked.revokedAt.toISOString() },
        page: { notice: `Key ${revoked.keyPrefix} revoked. It stops working at once and for good.` },
      };
    });

    keyAction('/public/auth/keys/:id/name', async (accountId, request) => {
      const renamed = await renameAccountKey(ctx.db, accountId, request.params.id, fields(request).name);
      return { json: { id: request.params.id, key_prefix: renamed.keyPrefix, name: renamed.name }, page: { notice: `Key ${renamed.keyPrefix} renamed.` } };
    });
  };
}
