/**
 * Subscriptions to the service's update e-mails (table `subscriptions`, migration 010) and contact
 * form messages (table `contact_messages`): what the website's visitors leave with the operator.
 */
import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** Record a pending subscription (a confirmed one stays confirmed; an unsubscribed one is pending again). */
export async function upsertPendingSubscription(db: Kysely<DB>, email: string): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values({ email, status: 'pending' })
    .onConflict((oc) => oc.column('email').doUpdateSet({ status: 'pending', unsubscribed_at: null }).where('subscriptions.status', '=', 'unsubscribed'))
    .execute();
}

/** Confirm a subscription; returns whether a row of `email` exists (and is now confirmed). */
export async function confirmSubscription(db: Kysely<DB>, email: string, at: Date): Promise<boolean> {
  const result = await db.updateTable('subscriptions').set({ status: 'confirmed', confirmed_at: at, unsubscribed_at: null }).where('email', '=', email).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Unsubscribe `email` (no row: nothing to do). */
export async function markUnsubscribed(db: Kysely<DB>, email: string, at: Date): Promise<void> {
  await db.updateTable('subscriptions').set({ status: 'unsubscribed', unsubscribed_at: at }).where('email', '=', email).where('status', '<>', 'unsubscribed').execute();
}

/** The status of `email`'s subscription, if any. */
export async function subscriptionStatus(db: Kysely<DB>, email: string): Promise<'pending' | 'confirmed' | 'unsubscribed' | undefined> {
  return (await db.selectFrom('subscriptions').select('status').where('email', '=', email).executeTakeFirst())?.status;
}

/** Store a contact message; returns its id. */
export async function insertContactMessage(db: Kysely<DB>, row: { email: string; name: string | null; message: string }): Promise<string> {
  const { id } = await db.insertInto('contact_messages').values(row).returning('id').executeTakeFirstOrThrow();
  return String(id);
}

/** Note that the operator was e-mailed about message `id`. */
export async function markContactMailed(db: Kysely<DB>, id: string, at: Date): Promise<void> {
  await db.updateTable('contact_messages').set({ mailed_at: at }).where('id', '=', id).execute();
}
