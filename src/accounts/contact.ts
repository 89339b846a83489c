/**
 * The contact form (spec: Website routes `contact`): a message is stored first (table
 * `contact_messages`), then e-mailed to the operator by the caller; a failed e-mail loses nothing.
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../domain/errors.ts';
import type { DB } from '../store/schema.ts';
import { insertContactMessage, markContactMailed } from '../store/subscriptions.ts';
import { normalizeEmail } from './email-address.ts';

/** Longest message accepted, characters. */
export const MAX_MESSAGE = 5000;
/** Longest name accepted, characters. */
export const MAX_NAME = 120;

/** A checked contact message. */
export interface ContactMessage {
  email: string;
  name: string | null;
  message: string;
}

/** Check a submitted form. @throws ApiError bad_email or bad_input (the message names the field). */
export function contactMessage(input: { email?: unknown; name?: unknown; message?: unknown }): ContactMessage {
  const email = normalizeEmail(input.email);
  if (!email) throw new ApiError('bad_email', '"email" must be an e-mail address, so the operator can answer.');
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length > MAX_NAME) throw new ApiError('bad_input', `"name" is ${name.length} characters; at most ${MAX_NAME} are allowed.`);
  const message = typeof input.message === 'string' ? input.message.trim() : '';
  if (!message) throw new ApiError('bad_input', '"message" is empty; write what you want to tell the operator.');
  if (message.length > MAX_MESSAGE) throw new ApiError('bad_input', `"message" is ${message.length} characters; at most ${MAX_MESSAGE} are allowed.`);
  return { email, name: name || null, message };
}

/** Store a message. @returns its id. */
export async function storeContactMessage(db: Kysely<DB>, message: ContactMessage): Promise<string> {
  return insertContactMessage(db, message);
}

/** Record that message `id` reached the operator. */
export async function contactMailed(db: Kysely<DB>, id: string, at: Date = new Date()): Promise<void> {
  await markContactMailed(db, id, at);
}
