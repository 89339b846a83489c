/**
 * The website under test: a loopback SMTP server (`smtp-server`) that keeps what it receives, the
 * site's settings pointing at it, the app serving the site on a loopback port ({@link useSite}), a
 * tiny cookie jar over fetch, and ALTCHA solved the way the widget does (altcha-lib's solver on the
 * served challenge).
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { Challenge } from 'altcha-lib/types';
import { SubmissionDesk } from '../../src/ingest/submissions.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import type { SiteOptions } from '../../src/site/site.ts';
import { buildTestApp, type TestAppOptions } from './app.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { useParts } from './hooks.ts';
import { freePort } from './ports.ts';

/** One delivered message. */
export interface DeliveredMail {
  to: string[];
  subject: string;
  text: string;
  headers: Map<string, unknown>;
}

/** A real SMTP server on loopback that keeps every message. */
export interface MailSink {
  url: string;
  messages: DeliveredMail[];
  /** The first message to `to` matching `subject`, waiting up to `timeoutMs`. */
  waitFor(to: string, subject: RegExp, timeoutMs?: number): Promise<DeliveredMail>;
  close(): Promise<void>;
}

export async function startMailSink(): Promise<MailSink> {
  const messages: DeliveredMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then((parsed) => {
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: parsed.subject ?? '',
          text: parsed.text ?? '',
          headers: parsed.headers as Map<string, unknown>,
        });
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(to, subject, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = messages.find((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no e-mail to ${to} matching ${subject} within ${timeoutMs} ms (got: ${messages.map((m) => `${m.to} ${m.subject}`).join('; ')})`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first absolute link in a message that contains `path`. */
export function linkIn(mail: DeliveredMail, path: string): string {
  const link = mail.text.match(/https?:\/\/\S+/g)?.find((l) => l.includes(path));
  if (!link) throw new Error(`no link to ${path} in: ${mail.text}`);
  return link;
}

/** Site settings for tests: mail to `sink`, a light proof of work, links valid `linkTtlSeconds`. */
export function testSiteOptions(sink: MailSink, overrides: Partial<SiteOptions> = {}): SiteOptions {
  return {
    siteUrl: 'http://127.0.0.1:1',
    secret: 'test-site-secret-of-at-least-32-characters',
    sessionSeconds: 3600,
    linkTtlSeconds: 900,
    mailer: createMailer({ smtpUrl: sink.url, from: 'jobledger <no-reply@jobledger.test>', outboxDir: '/nonexistent', log: pino({ level: 'silent' }) }),
    operatorEmail: 'operator@jobledger.test',
    altcha: { cost: 1, maxCounter: 30 },
    // Every test client calls from 127.0.0.1: the per-client limit is out of the way, the per-address one is real.
    formLimits: { perClient: 10_000, perEmail: 5 },
    ...overrides,
  };
}

/** How {@link listenSite} and {@link useSite} set the site up. */
export interface SiteSetup {
  /** Settings over {@link testSiteOptions}'s; `siteUrl` is the address the app listens on unless given (a site behind a TLS proxy). */
  site?: Partial<SiteOptions>;
  /** Take direct submissions (issue 17): a {@link SubmissionDesk} on the same database, mailer and links. */
  submissions?: boolean;
  /** The app's other options (a billing service, ...); the OpenAPI check of `app.inject` is off, calls go over real HTTP. */
  app?: Omit<TestAppOptions, 'site' | 'contract'>;
}

/** The app serving its website on loopback, as {@link listenSite} started it. */
export interface ListeningSite {
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>`: where the app listens, and by default the site's own URL (the links it mails point there). */
  base: string;
  /** The site's settings the app runs with. */
  site: SiteOptions;
  /** The submission desk, with `submissions: true`. */
  desk?: SubmissionDesk;
}

/** Build the app over `t` with its website mailing to `sink`, and listen on a free loopback port. */
export async function listenSite(t: TestDatabase, sink: MailSink, setup: SiteSetup = {}): Promise<ListeningSite> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const site = testSiteOptions(sink, { siteUrl: base, ...setup.site });
  const desk = setup.submissions
    ? new SubmissionDesk({ db: t.db, log: pino({ level: 'silent' }), mailer: site.mailer, siteUrl: base, linkTtlSeconds: site.linkTtlSeconds })
    : undefined;
  const app = await buildTestApp(t, { ...setup.app, contract: false, site: desk ? { ...site, submissions: desk } : site });
  await app.listen({ port, host: '127.0.0.1' });
  return { app, base, site, desk };
}

/** What {@link useSite} sets up. Its fields are there from the first hook or test of the block on. */
export interface TestSite extends Readonly<Required<ListeningSite>> {
  readonly t: TestDatabase;
  readonly sink: MailSink;
}

/**
 * A test database (with `corpus`, a clone of the imported real corpus), a mail sink and the app serving
 * its website on loopback ({@link listenSite}), made before the describe block's tests (and before the
 * block's own `beforeAll` hooks, which run after this one) and closed after them.
 */
export function useSite(setup: SiteSetup & { corpus?: boolean } = {}): TestSite {
  return useParts<TestSite>(
    'useSite',
    ['t', 'sink', 'app', 'base', 'site', 'desk'],
    async (made) => {
      made.t = await createTestDatabase({ corpus: setup.corpus });
      made.sink = await startMailSink();
      Object.assign(made, await listenSite(made.t, made.sink, setup));
    },
    async ({ app, sink, t }) => {
      await app?.close();
      await sink?.close();
      await t?.drop();
    },
  );
}

/** A browser-like HTTP client: keeps cookies, reads CSRF tokens, solves ALTCHA. */
export class SiteClient {
  readonly cookies = new Map<string, string>();
  readonly base: string;
  constructor(base: string) {
    this.base = base;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, options: { form?: Record<string, string>; json?: unknown; body?: string; headers?: Record<string, string>; cookies?: boolean } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.cookies !== false && this.cookies.size > 0) headers.cookie = this.cookieHeader();
    let body: string | undefined = options.body;
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    }
    const res = await fetch(`${this.base}${path}`, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** A CSRF token (and its cookie) as an API caller gets one. */
  async csrf(): Promise<string> {
    const res = await this.request('GET', '/site/csrf-token');
    return ((await res.json()) as { csrf_token: string }).csrf_token;
  }

  /** A solved ALTCHA payload, as the widget puts it in the form. */
  async altcha(): Promise<string> {
    const challenge = (await (await fetch(`${this.base}/site/altcha-challenge`)).json()) as Challenge;
    const solution = await solveChallenge({ challenge, deriveKey });
    if (!solution) throw new Error('could not solve the ALTCHA challenge');
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
  }
}
