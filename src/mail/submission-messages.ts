/**
 * The e-mails of direct submissions (docs/submissions.md): the verification link, the edit-or-close
 * link once the vacancy is published, and the 30-day re-confirmation reminder. Plain text; links are
 * absolute on `JOBLEDGER_SITE_URL`. Kept apart from messages.ts so each room's texts stay together.
 */
import type { MailText } from './messages.ts';

/** Minutes, for "the link works for N minutes" (rounded up, at least 1). */
function minutes(seconds: number): string {
  const m = Math.max(1, Math.ceil(seconds / 60));
  return m === 1 ? '1 minute' : `${m} minutes`;
}

/** Header lines, with line breaks removed (a title typed by a visitor must not forge mail lines). */
function oneLine(value: string): string {
  return value.replace(/[\r\n\u2028\u2029]+/g, ' ').slice(0, 200);
}

/** The verification link of a new submission, sent to the address at the company's domain. */
export function submissionVerifyMail(link: string, vacancy: { title: string; company: string }, ttlSeconds: number): MailText {
  return {
    subject: 'Verify your vacancy on jobledger',
    text: [
      `Someone submitted this vacancy to jobledger with your address:`,
      '',
      `  ${oneLine(vacancy.title)} at ${oneLine(vacancy.company)}`,
      '',
      'Open this link and confirm to publish it. Nothing is published without it:',
      '',
      link,
      '',
      `It works once, for ${minutes(ttlSeconds)}. If you did not submit it, ignore this message.`,
      '',
    ].join('\n'),
  };
}

/** The edit-or-close link, sent once the vacancy is published. */
export function submissionPublishedMail(manageLink: string, vacancy: { title: string; company: string }, reconfirmDays: number): MailText {
  return {
    subject: 'Your vacancy is published on jobledger',
    text: [
      `Your vacancy "${oneLine(vacancy.title)}" at ${oneLine(vacancy.company)} is published.`,
      '',
      'Keep this link: it edits the vacancy, closes it when it is filled, or confirms it is still open.',
      '',
      manageLink,
      '',
      `Every ${reconfirmDays} days we ask you to confirm that the vacancy is still open; one that is not confirmed is taken down a week later.`,
      'Anyone with this link can change the vacancy: do not share it.',
      '',
    ].join('\n'),
  };
}

/** The reminder to re-confirm an open vacancy; carries a new edit-or-close link (the old one stops working). */
export function submissionReminderMail(manageLink: string, vacancy: { title: string; company: string }, graceDays: number): MailText {
  return {
    subject: 'Is your vacancy still open? Confirm it on jobledger',
    text: [
      `Your vacancy "${oneLine(vacancy.title)}" at ${oneLine(vacancy.company)} is published on jobledger.`,
      '',
      `Is it still open? Open this link and press "Still open" within ${graceDays} days, or it is taken down.`,
      'The same page edits the vacancy or closes it when it is filled:',
      '',
      manageLink,
      '',
      'This link replaces the one we sent before.',
      '',
    ].join('\n'),
  };
}
