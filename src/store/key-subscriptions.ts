/**
 * The billing repository (tables `key_subscriptions` and `billing_events`, migration 011): which
 * subscription pays for which key, and which payment-provider notifications were acted on. The
 * decisions (what a subscription's state means for the key) are made in `src/billing/`; this module
 * writes them, each with its notification, in one transaction.
 */
import type { Kysely } from 'kysely';
import { findKey, setKeyPlan } from './api-keys.ts';
import type { ApiKeyRow, DB, KeySubscriptionRow } from './schema.ts';

/** A key and the subscription that pays for it, if any. */
export async function findKeyWithSubscription(db: Kysely<DB>, keyId: string): Promise<{ key: ApiKeyRow; subscription: KeySubscriptionRow | undefined } | undefined> {
  const key = await findKey(db, { id: keyId });
  if (!key) return undefined;
  const subscription = await db.selectFrom('key_subscriptions').selectAll().where('api_key_id', '=', keyId).executeTakeFirst();
  return { key, subscription };
}

/** The subscription rows of `keyIds` (a key without one has no row). */
export async function listKeySubscriptions(db: Kysely<DB>, keyIds: readonly string[]): Promise<KeySubscriptionRow[]> {
  if (keyIds.length === 0) return [];
  return db.selectFrom('key_subscriptions').selectAll().where('api_key_id', 'in', [...keyIds]).execute();
}

/** Whether the provider's notification `eventId` was acted on already. */
export async function billingEventSeen(db: Kysely<DB>, provider: string, eventId: string): Promise<boolean> {
  const row = await db.selectFrom('billing_events').select('event_id').where('provider', '=', provider).where('event_id', '=', eventId).executeTakeFirst();
  return row !== undefined;
}

/** The state of one subscription, as the provider reports it, applied to the key it pays for. */
export interface SubscriptionState {
  keyId: string;
  subscriptionId: string;
  customerId: string | null;
  /** The plan the subscription buys. */
  planId: string;
  /** The provider's status word. */
  status: string;
  /** End of the period paid for. */
  renewsAt: Date;
  /** The instant the plan lapses (the subscription will not renew), or null while it renews. */
  lapsesAt: Date | null;
  /** The plan the key holds once the subscription has lapsed. */
  planAfter: string;
}

/** One notification to record, with the change it makes (if any). */
export interface BillingEvent {
  provider: string;
  eventId: string;
  eventType: string;
  /**
   * The subscription state to apply. `replace`: the key's current subscription becomes this one (a
   * completed purchase); otherwise the state applies only when this subscription is the key's current
   * one, so a late notification about a replaced subscription changes nothing.
   */
  change?: { state: SubscriptionState; replace: boolean };
  /** Outcome recorded when there is no change (e.g. `ignored: event type not handled`). */
  outcome?: string;
}

/** What {@link recordBillingEvent} did. */
export type RecordedBillingEvent =
  | { kind: 'duplicate' }
  | { kind: 'ignored'; outcome: string }
  | { kind: 'applied'; outcome: string; planId: string };

/**
 * Record a notification and make its change, in one transaction: a notification whose id was
 * recorded before (a replay, a re-delivery, two deliveries at once) changes nothing and reports
 * `duplicate`. An applied state upserts the key's subscription row and sets the key's plan to the plan
 * it holds at `now` (the bought plan, or `planAfter` once the subscription has lapsed).
 */
export async function recordBillingEvent(db: Kysely<DB>, event: BillingEvent, now: Date = new Date()): Promise<RecordedBillingEvent> {
  return db.transaction().execute(async (trx) => {
    // The primary key serialises concurrent deliveries of one event: the second waits for the first
    // to commit, then inserts nothing.
    const inserted = await trx
      .insertInto('billing_events')
      .values({ provider: event.provider, event_id: event.eventId, event_type: event.eventType, outcome: 'pending' })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!inserted) return { kind: 'duplicate' as const };
    const result = await applyChange(trx, event, now);
    await trx
      .updateTable('billing_events')
      .set({ outcome: result.outcome })
      .where('provider', '=', event.provider)
      .where('event_id', '=', event.eventId)
      .execute();
    return result;
  });
}

async function applyChange(trx: Kysely<DB>, event: BillingEvent, now: Date): Promise<Exclude<RecordedBillingEvent, { kind: 'duplicate' }>> {
  if (!event.change) return { kind: 'ignored', outcome: event.outcome ?? 'ignored' };
  const { state, replace } = event.change;
  const key = await trx.selectFrom('api_keys').select('id').where('id', '=', state.keyId).forUpdate().executeTakeFirst();
  if (!key) return { kind: 'ignored', outcome: `ignored: no key ${state.keyId}` };
  const current = await trx.selectFrom('key_subscriptions').selectAll().where('api_key_id', '=', state.keyId).executeTakeFirst();
  if (!replace && current?.subscription_id !== state.subscriptionId) {
    return { kind: 'ignored', outcome: `ignored: ${state.subscriptionId} is not the subscription of key ${state.keyId}` };
  }
  const row = {
    provider: event.provider,
    subscription_id: state.subscriptionId,
    customer_id: state.customerId,
    plan_id: state.planId,
    status: state.status,
    renews_at: state.renewsAt,
    lapses_at: state.lapsesAt,
    plan_after: state.planAfter,
    updated_at: now,
  };
  await trx
    .insertInto('key_subscriptions')
    .values({ api_key_id: state.keyId, ...row })
    .onConflict((oc) => oc.column('api_key_id').doUpdateSet(row))
    .execute();
  const lapsed = state.lapsesAt !== null && state.lapsesAt.getTime() <= now.getTime();
  const planId = lapsed ? state.planAfter : state.planId;
  await setKeyPlan(trx, state.keyId, planId);
  const outcome = lapsed
    ? `plan ${state.planAfter} (subscription ${state.subscriptionId} ${state.status}, lapsed at ${state.lapsesAt!.toISOString()})`
    : `plan ${state.planId} until ${(state.lapsesAt ?? state.renewsAt).toISOString()} (subscription ${state.subscriptionId} ${state.status}${state.lapsesAt ? ', does not renew' : ''})`;
  return { kind: 'applied', outcome, planId };
}

/** The key subscription row of the provider's subscription `subscriptionId`, if it pays for a key. */
export async function findSubscriptionKey(db: Kysely<DB>, provider: string, subscriptionId: string): Promise<KeySubscriptionRow | undefined> {
  return db.selectFrom('key_subscriptions').selectAll().where('provider', '=', provider).where('subscription_id', '=', subscriptionId).executeTakeFirst();
}
