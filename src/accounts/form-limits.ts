/**
 * Limits on the website's e-mailing forms (issue 14: "limited per address and per e-mail"): every
 * form that sends an e-mail counts one hit per client address and one per e-mail address it sends to,
 * on the request counters (`access/counters.ts`: Redis, PostgreSQL or memory). The answer to a
 * refusal is the same whether or not the address has an account.
 */
import { windowCounter, type CounterStore, type WindowCounter } from '../access/counters.ts';
import { ApiError } from '../domain/errors.ts';

/** Hits per window (one hour) per client address and per e-mail address. */
export interface FormLimitSettings {
  perClient: number;
  perEmail: number;
}

/** 20 e-mailing forms an hour from one client address; 5 e-mails an hour to one address. */
export const DEFAULT_FORM_LIMITS: FormLimitSettings = { perClient: 20, perEmail: 5 };
const WINDOW_SECONDS = 3600;

export class FormLimiter {
  readonly #client: WindowCounter;
  readonly #email: WindowCounter;
  readonly #settings: FormLimitSettings;

  constructor(store: CounterStore, settings: FormLimitSettings = DEFAULT_FORM_LIMITS) {
    this.#client = windowCounter(store, 'site-client', WINDOW_SECONDS);
    this.#email = windowCounter(store, 'site-email', WINDOW_SECONDS);
    this.#settings = settings;
  }

  /**
   * Count one e-mailing request from `clientAddress` to `email`.
   * @throws ApiError rate_limited with Retry-After when either limit is passed.
   */
  async take(clientAddress: string, email: string): Promise<void> {
    const [client, mail] = await Promise.all([this.#client.hit(clientAddress), this.#email.hit(email)]);
    const over = [client.count > this.#settings.perClient ? client.msBeforeReset : 0, mail.count > this.#settings.perEmail ? mail.msBeforeReset : 0];
    const wait = Math.max(...over);
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000));
      throw new ApiError('rate_limited', `Too many e-mails asked for from this address or to this e-mail address; retry after ${seconds} seconds.`, { headers: { 'Retry-After': String(seconds) } });
    }
  }
}
