/**
 * Outgoing e-mail. With an SMTP URL (`JOBLEDGER_SMTP_URL`) messages go through nodemailer's SMTP
 * transport; without one (the embedded default) each message is written as an RFC 5322 `.eml` file
 * to the outbox folder (`<dataDir>/outbox`) by nodemailer's stream transport, so `npm start` works
 * with no mail server and a person can open the sign-in link from the file or the log.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from 'pino';

/** One message: plain text only (every link readable and copyable in any client). */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** `Reply-To` (the contact form sets the visitor's address). */
  replyTo?: string;
  /** Extra headers, e.g. `List-Unsubscribe`. */
  headers?: Record<string, string>;
}

export interface Mailer {
  /** Send one message. @throws when the SMTP server refuses it or cannot be reached. */
  send(message: MailMessage): Promise<void>;
  /** `smtp` or `outbox`: where messages go. */
  readonly kind: 'smtp' | 'outbox';
  close(): void;
}

export interface MailerOptions {
  /** `smtp://` or `smtps://` URL; undefined selects the outbox. */
  smtpUrl: string | undefined;
  from: string;
  /** Folder of the outbox (created on first use). */
  outboxDir: string;
  log: Logger;
}

/** A mailer for the settings (docs/website.md "E-mail"). */
export function createMailer(options: MailerOptions): Mailer {
  if (options.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(options.smtpUrl);
    return {
      kind: 'smtp',
      async send(message) {
        await transport.sendMail({ from: options.from, ...message });
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  let sequence = 0;
  return {
    kind: 'outbox',
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...message });
      await mkdir(options.outboxDir, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}-${++sequence}.eml`;
      const file = path.join(options.outboxDir, name);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      options.log.info({ to: message.to, subject: message.subject, file }, 'e-mail written to the outbox (no JOBLEDGER_SMTP_URL)');
    },
    close: () => transport.close(),
  };
}
