/**
 * Sign-in and key self-service (spec: Website routes `auth/request`, `auth/verify`, key management;
 * Authentication items 5, 10, 11; API key state). Every route checks the CSRF token; the key routes
 * first need the session cookie (an API key is never read here), and touch only the session's
 * account's keys. A browser's form post gets a page, an API caller JSON (docs/website.md).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createFreeKey, keyName, renameAccountKey, revokeAccountKey, rotateAccountKey } from '../accounts/account-keys.ts';
import { normalizeEmail } from '../accounts/email-address.ts';
import { completeSignIn, issueSignInToken } from '../accounts/sign-in.ts';
import { ApiError } from '../domain/errors.ts';
import { signInMail } from '../mail/messages.ts';
import { fields, FORM_BODY_LIMIT, fromBrowserForm, renderPage, sessionAccount, type SiteContext } from './context.ts';
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
      const body = fields(request);
      await ctx.human.check(body.altcha);
      const email = normalizeEmail(body.email);
      if (!email) throw new ApiError('bad_email', '"email" must be an e-mail address such as you@example.com.');
      await ctx.formLimits.take(request.ip, email);
      const token = await issueSignInToken(ctx.db, email, ctx.linkTtlSeconds);
      const link = `${ctx.siteUrl}/signin/verify?token=${token}`;
      await sendMail(ctx, { to: email, ...signInMail(link, ctx.linkTtlSeconds) });
      // No mail server (the embedded default): the person at the console signs in with the logged link.
      if (ctx.logLinks) ctx.log.info({ to: email, link }, 'sign-in link (no JOBLEDGER_SMTP_URL: the e-mail is in the outbox)');
      if (fromBrowserForm(request)) return renderPage(request, reply, 'check-email', { title: 'Check your e-mail', email, purpose: 'a sign-in link' });
      return reply.code(202).send({ status: 'sent', message: SIGN_IN_SENT });
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

    /** The account page (browser) or JSON, after a key change. */
    async function answer(request: FastifyRequest, reply: FastifyReply, accountId: string, json: Record<string, unknown>, page: Record<string, unknown>, status = 200) {
      if (fromBrowserForm(request)) return renderPage(request, reply, 'account', { ...(await accountPageData(ctx, accountId)), ...page });
      return reply.code(status).send(json);
    }

    app.post('/public/auth/keys', sessionForm, async (request, reply) => {
      const accountId = sessionAccount(request);
      const created = await createFreeKey(ctx.db, accountId, keyName(fields(request).name));
      return answer(
        request,
        reply,
        accountId,
        { id: created.id, key_prefix: created.keyPrefix, plan: created.planId, secret: created.secret },
        { secret: created.secret, secretPrefix: created.keyPrefix, notice: `Key ${created.keyPrefix} created.` },
        201,
      );
    });

    app.post<{ Params: { id: string } }>('/public/auth/keys/:id/rotate', sessionForm, async (request, reply) => {
      const accountId = sessionAccount(request);
      const rotated = await rotateAccountKey(ctx.db, accountId, request.params.id);
      return answer(
        request,
        reply,
        accountId,
        { id: rotated.id, key_prefix: rotated.keyPrefix, secret: rotated.secret },
        { secret: rotated.secret, secretPrefix: rotated.keyPrefix, notice: `Key ${rotated.keyPrefix} rotated: the old secret no longer works.` },
      );
    });

    app.post<{ Params: { id: string } }>('/public/auth/keys/:id/revoke', sessionForm, async (request, reply) => {
      const accountId = sessionAccount(request);
      const revoked = await revokeAccountKey(ctx.db, accountId, request.params.id);
      return answer(
        request,
        reply,
        accountId,
        { id: request.params.id, key_prefix: revoked.keyPrefix, status: 'revoked', revoked_at: revoked.revokedAt.toISOString() },
        { notice: `Key ${revoked.keyPrefix} revoked. It stops working at once and for good.` },
      );
    });

    app.post<{ Params: { id: string } }>('/public/auth/keys/:id/name', sessionForm, async (request, reply) => {
      const accountId = sessionAccount(request);
      const renamed = await renameAccountKey(ctx.db, accountId, request.params.id, fields(request).name);
      return answer(request, reply, accountId, { id: request.params.id, key_prefix: renamed.keyPrefix, name: renamed.name }, { notice: `Key ${renamed.keyPrefix} renamed.` });
    });
  };
}
