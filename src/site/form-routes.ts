/**
 * The website's other forms (spec: Website routes `optout/request`, `optout/verify`, `subscribe`,
 * `unsubscribe`, `contact`): every one checks the CSRF token; those that send e-mail to an address
 * the visitor typed also need the ALTCHA human check and are limited per client and per address.
 */
import type { FastifyInstance } from 'fastify';
import { contactMailed, contactMessage, storeContactMessage } from '../accounts/contact.ts';
import { confirmOptout, issueOptoutToken, optoutTarget } from '../accounts/optout-requests.ts';
import { confirmSubscriptionToken, requestSubscription, unsubscribe, unsubscribeToken } from '../accounts/subscriptions.ts';
import { contactMail, optoutMail, subscribeMail } from '../mail/messages.ts';
import { sendMail } from './auth-routes.ts';
import { emailField, fields, FORM_BODY_LIMIT, fromBrowserForm, guardedForm, linkSent, renderPage, type SiteContext } from './context.ts';

export function formRoutes(ctx: SiteContext) {
  return async (app: FastifyInstance) => {
    const form = { bodyLimit: FORM_BODY_LIMIT, preHandler: app.csrfProtection };

    app.post('/public/optout/request', form, async (request, reply) => {
      const target = await guardedForm(ctx, request, (body) => optoutTarget(body.domain, body.email));
      const token = await issueOptoutToken(ctx.db, target, ctx.linkTtlSeconds);
      await sendMail(ctx, { to: target.email, ...optoutMail(`${ctx.siteUrl}/optout/verify?token=${token}`, target.domain, ctx.linkTtlSeconds) });
      return linkSent(request, reply, { email: target.email, purpose: `the link that confirms the opt-out of ${target.domain}`, message: `A confirmation link was sent to ${target.email}.` });
    });

    app.post('/public/optout/verify', form, async (request, reply) => {
      const result = await confirmOptout(ctx.db, fields(request).token);
      ctx.log.info({ domain: result.domain, recorded: result.recorded, hidden: result.hidden, withdrawn: result.withdrawn }, 'employer opt-out confirmed on the website');
      if (fromBrowserForm(request)) return renderPage(request, reply, 'done', { title: 'Opt-out recorded', heading: 'Opt-out recorded', text: optoutDoneText(result) });
      return reply.send({ status: 'opted_out', domain: result.domain, already: !result.recorded, hidden: result.hidden, withdrawn: result.withdrawn });
    });

    app.post('/public/subscribe', form, async (request, reply) => {
      const { email } = await guardedForm(ctx, request, emailField);
      const token = await requestSubscription(ctx.db, email, ctx.linkTtlSeconds);
      const unsubscribeLink = `${ctx.siteUrl}/unsubscribe?token=${unsubscribeToken(ctx.secret, email)}`;
      await sendMail(ctx, { to: email, ...subscribeMail(`${ctx.siteUrl}/subscribe/confirm?token=${token}`, unsubscribeLink, ctx.linkTtlSeconds), headers: { 'List-Unsubscribe': `<${unsubscribeLink}>` } });
      return linkSent(request, reply, { email, purpose: 'the link that confirms your subscription', message: 'If this address can receive e-mail, a confirmation link is on its way.' });
    });

    app.post('/public/subscribe/confirm', form, async (request, reply) => {
      const email = await confirmSubscriptionToken(ctx.db, fields(request).token);
      if (fromBrowserForm(request)) return renderPage(request, reply, 'done', { title: 'Subscription confirmed', heading: 'Subscription confirmed', text: `${email} will receive e-mails about changes to jobledger. Every e-mail has an unsubscribe link.` });
      return reply.send({ status: 'subscribed', email });
    });

    app.post('/public/unsubscribe', form, async (request, reply) => {
      const email = await unsubscribe(ctx.db, ctx.secret, fields(request).token);
      if (fromBrowserForm(request)) return renderPage(request, reply, 'done', { title: 'Unsubscribed', heading: 'Unsubscribed', text: `${email} will receive no more update e-mails from jobledger.` });
      return reply.send({ status: 'unsubscribed', email });
    });

    app.post('/public/contact', form, async (request, reply) => {
      const message = await guardedForm(ctx, request, contactMessage);
      const id = await storeContactMessage(ctx.db, message);
      if (ctx.operatorEmail) {
        try {
          await ctx.mailer.send({ to: ctx.operatorEmail, replyTo: message.email, ...contactMail(message, message.message, id) });
          await contactMailed(ctx.db, id);
        } catch (error) {
          // The message is stored: the operator reads it in the table even when the mail failed.
          ctx.log.error({ err: error, id }, 'contact message stored but not e-mailed to the operator');
        }
      } else {
        ctx.log.info({ id }, 'contact message stored (no JOBLEDGER_OPERATOR_EMAIL to e-mail it to)');
      }
      if (fromBrowserForm(request)) return renderPage(request, reply, 'done', { title: 'Message sent', heading: 'Thank you', text: 'Your message reached the operator. The answer goes to the address you gave.' });
      return reply.code(201).send({ status: 'received', id });
    });
  };
}

/**
 * The confirmation page's sentence: the published postings that were withdrawn (rows that were already
 * withheld were not published, so they are not counted), and how to undo it (the operator revokes it).
 */
function optoutDoneText(result: { domain: string; recorded: boolean; withdrawn: number }): string {
  if (!result.recorded) return `An opt-out already covered ${result.domain}: jobledger does not publish its postings.`;
  const withdrawn = result.withdrawn === 0 ? 'None of its postings was published.' : result.withdrawn === 1 ? '1 published posting was withdrawn.' : `${result.withdrawn} published postings were withdrawn.`;
  return `jobledger no longer publishes postings of ${result.domain}. ${withdrawn} To undo it, write to us through the contact page.`;
}
