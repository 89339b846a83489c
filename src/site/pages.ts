/**
 * The website's pages (GET): home, sign-in, the e-mailed links' landing pages, account, plans,
 * opt-out, contact, and two JSON helpers (an ALTCHA challenge, a CSRF token for API callers).
 * Landing pages never act on a GET: they show a button that posts the token, so a mail scanner that
 * opens links spends nothing.
 */
import type { FastifyInstance } from 'fastify';
import { listAccountKeys } from '../accounts/account-keys.ts';
import { findAccount } from '../store/accounts.ts';
import { listPurchasablePlans } from '../store/plans.ts';
import { confirmLinkPage, renderPage, type SiteContext } from './context.ts';

/** Euros from cents, e.g. 8000 → "80". */
function euros(cents: number): string {
  return cents % 100 === 0 ? String(cents / 100) : (cents / 100).toFixed(2);
}

/** The account page's data: the account, its keys, whether the free key is still there to take, the paid plans on sale (empty without a payment provider). */
export async function accountPageData(ctx: SiteContext, accountId: string) {
  const [account, keys, onSale] = await Promise.all([
    findAccount(ctx.db, accountId),
    listAccountKeys(ctx.db, accountId, ctx.requestLimiter),
    // Upgrade forms only when billing sells plans (a payment provider is configured).
    ctx.billing.offersUpgrades() ? ctx.billing.plansOnSale() : Promise.resolve([]),
  ]);
  const terms = await ctx.billing.keyTerms(keys.map((k) => k.id));
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return {
    title: 'Your account',
    upgrades: onSale.map((p) => ({ id: p.id, label: p.label, price: `€${euros(p.price_cents)} / month` })),
    email: account?.email ?? '',
    freeKeyAvailable: account ? account.freeKeyAt === null : false,
    keys: keys.map((k) => ({
      id: k.id,
      prefix: k.keyPrefix,
      name: k.name ?? '',
      plan: k.planId,
      status: k.status,
      created: k.createdAt.toISOString().slice(0, 10),
      recordsThisMonth: k.recordsThisMonth,
      requestsToday: k.requestsToday,
      // A paid plan's term, e.g. "renews 2026-12-25" or "until 2026-12-25".
      term: ((term) => (term ? (term.lapsesAt ? `until ${day(term.lapsesAt)}` : `renews ${day(term.renewsAt)}`) : ''))(terms.get(k.id)),
      // A key whose subscription renews cannot start a second one (billing answers 409).
      buyable: k.status === 'active' && !(terms.get(k.id) && terms.get(k.id)!.lapsesAt === null),
    })),
  };
}

/**
 * The pages mailed links open (path → the copy of its confirm-link page): each shows one button that
 * posts the link's token to `action`, the route that acts on it (site/auth-routes.ts,
 * site/form-routes.ts).
 */
const MAILED_LINK_PAGES: Readonly<Record<string, Parameters<typeof confirmLinkPage>[0]>> = {
  '/signin/verify': {
    title: 'Sign in',
    heading: 'Sign in to jobledger',
    text: 'Press the button to sign in. The link works once.',
    action: '/public/auth/verify',
    button: 'Sign in',
  },
  '/optout/verify': {
    heading: 'Confirm the opt-out',
    text: 'Press the button to stop jobledger from publishing this employer\'s postings. They are withdrawn at once.',
    action: '/public/optout/verify',
    button: 'Confirm the opt-out',
  },
  '/subscribe/confirm': {
    heading: 'Confirm your subscription',
    text: 'Press the button to receive e-mails about changes to jobledger.',
    action: '/public/subscribe/confirm',
    button: 'Confirm',
  },
  '/unsubscribe': {
    heading: 'Unsubscribe',
    text: 'Press the button to stop e-mails about changes to jobledger. No sign-in is needed.',
    action: '/public/unsubscribe',
    button: 'Unsubscribe',
  },
};

export function pageRoutes(ctx: SiteContext) {
  return async (app: FastifyInstance) => {
    app.get('/', async (request, reply) => renderPage(request, reply, 'home', { title: 'Employer-direct job vacancies, with provenance' }));

    app.get('/signin', async (request, reply) => {
      if (request.session.accountId) return reply.redirect('/account', 303);
      return renderPage(request, reply, 'signin', { title: 'Sign in' });
    });

    app.get('/account', async (request, reply) => {
      const accountId = request.session.accountId;
      if (!accountId) return reply.redirect('/signin', 303);
      const checkout = (request.query as Record<string, unknown> | undefined)?.checkout;
      // Stripe sends the buyer back here; the plan itself changes when its signed webhook arrives.
      const notice =
        checkout === 'success' ? 'Thank you for your payment. The key\'s new plan shows in the table as soon as the payment provider confirms it, usually within seconds: reload if it still shows the old plan.'
        : checkout === 'cancelled' ? 'The checkout was cancelled: nothing was charged and the plan is unchanged.'
        : undefined;
      return renderPage(request, reply, 'account', { ...(await accountPageData(ctx, accountId)), ...(notice ? { notice } : {}) });
    });

    app.get('/plans', async (request, reply) => {
      const plans = await listPurchasablePlans(ctx.db);
      return renderPage(request, reply, 'plans', {
        title: 'Plans',
        // Paid plans are sold here only with a payment provider; otherwise the operator hands them out.
        sells: ctx.billing.offersUpgrades(),
        plans: plans.map((p) => ({
          id: p.id,
          label: p.label,
          price: p.price_cents === 0 ? 'Free' : `${euros(p.price_cents)} ${p.currency}/month`,
          records: Number(p.records_per_month).toLocaleString('en'),
          perDay: p.requests_per_day.toLocaleString('en'),
          perMinute: p.requests_per_minute.toLocaleString('en'),
          deltaFeed: p.entitlements.includes('delta_feed'),
          bulkExport: p.entitlements.includes('bulk_export'),
        })),
      });
    });

    app.get('/optout', async (request, reply) => renderPage(request, reply, 'optout', { title: 'Opt out an employer' }));

    app.get('/contact', async (request, reply) => renderPage(request, reply, 'contact', { title: 'Contact' }));

    for (const [path, copy] of Object.entries(MAILED_LINK_PAGES)) app.get(path, confirmLinkPage(copy));

    app.get('/site/altcha-challenge', async (_request, reply) => reply.header('Cache-Control', 'no-store').send(await ctx.human.challenge()));

    app.get('/site/csrf-token', async (_request, reply) => reply.header('Cache-Control', 'no-store').send({ csrf_token: reply.generateCsrf() }));
  };
}
