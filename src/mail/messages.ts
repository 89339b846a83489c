/**
 * The text of every e-mail the website sends (docs/website.md "E-mails"). Each function returns the
 * subject and the plain-text body; links are absolute, built on `JOBLEDGER_SITE_URL`.
 */

/** Subject and body of one e-mail. */
export interface MailText {
  subject: string;
  text: string;
}

/** Minutes, for "the link works for N minutes" (rounded up, at least 1). */
function minutes(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return m === 1 ? '1 minute' : `${m} minutes`;
}

/** The sign-in link (`POST /public/auth/request`). */
export function signInMail(link: string, ttlSeconds: number): MailText {
  return {
    subject: 'Your jobledger sign-in link',
    text: [
      'Open this link to sign in to jobledger:',
      '',
      link,
      '',
      `It works once, for ${minutes(ttlSeconds)}. If you did not ask for it, ignore this message: nothing happens without the link.`,
      '',
    ].join('\n'),
  };
}

/** The opt-out verification link, sent to an address at the employer's domain. */
export function optoutMail(link: string, domain: string, ttlSeconds: number): MailText {
  return {
    subject: `Confirm the opt-out of ${domain} from jobledger`,
    text: [
      `Someone asked jobledger to stop publishing job postings of ${domain}.`,
      'Open this link and confirm to record the opt-out; the postings are withdrawn at once:',
      '',
      link,
      '',
      `It works once, for ${minutes(ttlSeconds)}. If you did not ask for it, ignore this message.`,
      '',
    ].join('\n'),
  };
}

/** The confirmation of a subscription (double opt-in). */
export function subscribeMail(link: string, unsubscribeLink: string, ttlSeconds: number): MailText {
  return {
    subject: 'Confirm your subscription to jobledger updates',
    text: [
      'Open this link to confirm that you want e-mails about changes to jobledger:',
      '',
      link,
      '',
      `It works once, for ${minutes(ttlSeconds)}. Without it you get no e-mail from us. You can unsubscribe at any time:`,
      unsubscribeLink,
      '',
    ].join('\n'),
  };
}

/** A contact form message, to the operator. */
export function contactMail(from: { email: string; name: string | null }, message: string, id: string): MailText {
  return {
    subject: `jobledger contact #${id} from ${from.name ? `${from.name} <${from.email}>` : from.email}`,
    text: [`Message #${id} sent through the contact form by ${from.name ?? '(no name)'} <${from.email}>:`, '', message, ''].join('\n'),
  };
}
