/**
 * Direct submissions over real HTTP (issue 17): the form and JSON route with ALTCHA and CSRF, the
 * verification link through a real SMTP server on loopback, the ledger row served on /public/jobs as
 * provider `submissions` (class `direct`, source_type `career_site`) with truthful field_sources, the
 * edit (`updated`), close (`delisted`, expired_upstream), re-confirmation reminder and lapse (not_seen),
 * the operator's rejection (`withdrawn`, also through `jobledger submissions`), the limits, and every
 * refusal storing nothing.
 * (The real-browser walk-through is test/browser/submissions.test.ts.)
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { GRACE_DAYS, RECONFIRM_DAYS, SubmissionDesk } from '../src/ingest/submissions.ts';
import { runCli } from './helpers/cli-process.ts';
import { linkIn, SiteClient, testSiteOptions, useSite, type DeliveredMail } from './helpers/site.ts';

const ctx = useSite({ submissions: true });

const DAY_MS = 24 * 3600 * 1000;

/** A complete, valid submission for `domain`. */
function vacancy(domain: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    title: 'Senior Backend Engineer',
    company: 'Acme Robotics',
    company_domain: domain,
    location: 'Berlin, Germany',
    employment_type: 'Full-time',
    remote: 'hybrid',
    description: 'You build the services our robots talk to.\n\nWe offer a small team, real ownership and a fair salary.',
    apply_url: `https://careers.${domain}/apply/backend`,
    salary_min: '70000',
    salary_max: '85000',
    salary_currency: 'EUR',
    salary_period: 'annual',
    email: `hr@${domain}`,
    ...overrides,
  };
}

async function counts() {
  const n = async (table: 'submissions' | 'email_tokens' | 'jobs') => Number((await ctx.t.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  return { submissions: await n('submissions'), tokens: await n('email_tokens'), jobs: await n('jobs'), mails: ctx.sink.messages.length };
}

async function post(client: SiteClient, path: string, json: unknown): Promise<Response> {
  return client.request('POST', path, { json, headers: { 'csrf-token': await client.csrf() } });
}

/** Submit as an API caller; returns the answer. */
async function submit(client: SiteClient, body: Record<string, string>, altcha = true): Promise<Response> {
  return post(client, '/public/submissions', { ...body, ...(altcha ? { altcha: await client.altcha() } : {}) });
}

/** Take (and remove) the newest mail to `to` matching `subject`. */
async function takeMail(to: string, subject: RegExp): Promise<DeliveredMail> {
  const mail = await ctx.sink.waitFor(to, subject);
  ctx.sink.messages.splice(ctx.sink.messages.indexOf(mail), 1);
  return mail;
}

function tokenOf(mail: DeliveredMail, path: string): string {
  return new URL(linkIn(mail, path)).searchParams.get('token')!;
}

/** Submit and verify `body`; returns the job id and the edit-or-close token. */
async function publish(body: Record<string, string>): Promise<{ jobId: string; submissionId: string; manage: string }> {
  const client = new SiteClient(ctx.base);
  expect((await submit(client, body)).status).toBe(202);
  const token = tokenOf(await takeMail(body.email!, /Verify your vacancy/), '/submit/verify');
  const res = await post(client, '/public/submissions/verify', { token });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { job_id: string; submission_id: string; status: string };
  expect(answer.status).toBe('published');
  const manage = tokenOf(await takeMail(body.email!, /is published/), '/submit/manage');
  return { jobId: answer.job_id, submissionId: answer.submission_id, manage };
}

/** The text of served HTML: the entities Eta escapes, unescaped. */
function unescapeHtml(html: string): string {
  return html.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

/** The opening tag of the form control with id `id` in `html` (input, select or textarea). */
function controlTag(html: string, id: string): string {
  const tag = html.match(new RegExp(`<(?:input|select|textarea)\\b[^>]*\\bid="${id}"[^>]*>`))?.[0];
  if (!tag) throw new Error(`no control #${id} in the page`);
  return tag;
}

/** What a refused form page shows: the summary's links (href, text) and each field's own message by control id. */
function refusedPage(html: string): { title: string | undefined; summary: { href: string; text: string }[]; messages: Map<string, string> } {
  const box = html.match(/<div class="error-summary"[\s\S]*?<\/div>/)?.[0] ?? '';
  const summary = [...box.matchAll(/<li><a href="([^"]+)">([^<]*)<\/a><\/li>/g)].map((m) => ({ href: m[1]!, text: unescapeHtml(m[2]!) }));
  const messages = new Map([...html.matchAll(/<p class="field-error" id="([^"]+)-error"><span class="visually-hidden">Error: <\/span>([^<]*)<\/p>/g)].map((m) => [m[1]!, unescapeHtml(m[2]!)]));
  return { title: html.match(/<title>([^<]*)<\/title>/)?.[1], summary, messages };
}

/**
 * Every refused field is shown at once: the summary lists `expected` (control id, message) in form
 * order, each a link to its field, and has the focus (`autofocus`, nothing else has); each of those
 * fields is marked (aria-invalid, aria-describedby to its own message, shown next to it) and no other is.
 */
/**
 * What a page shows, by control id, when title, company, location, apply URL ("not a url") and salary
 * ("lots") are refused: the apply URL's example is on `domain`, the accepted company domain
 * (example.com when that is refused too).
 */
function contentErrors(domain: string): [id: string, message: string][] {
  return [
    ['s-title', '“Job title” is required, e.g. Backend Engineer.'],
    ['s-company', '“Company name” is required, e.g. Example Ltd.'],
    ['s-location', '“Location” is required, e.g. Berlin, Germany or Remote (EU).'],
    ['s-apply', `“Apply URL” must be the full address of your application page, e.g. https://${domain}/careers/apply or your board on a known applicant-tracking system.`],
    ['s-salary-min', '“Salary from” must be a positive amount such as 65000 or 32.50.'],
  ];
}

/** The JSON body of a 422 refusal as the API writes it (keys in the catalogue's order), for byte comparisons. */
function refusalBody(code: string, message: string): string {
  return JSON.stringify({ error: code, message, docs: `https://docs.example.test/errors#${code}`, type: `https://docs.example.test/errors#${code}`, title: 'Unprocessable Entity', status: 422 });
}

function expectEveryFieldMarked(html: string, expected: [id: string, message: string][]): void {
  const page = refusedPage(html);
  expect(page.summary).toEqual(expected.map(([id, message]) => ({ href: `#${id}`, text: message })));
  expect([...page.messages]).toEqual(expected);
  for (const [id] of expected) {
    const tag = controlTag(html, id);
    expect(tag).toContain(' aria-invalid="true"');
    expect(tag).toContain(` aria-describedby="${id}-error"`);
  }
  expect(html.match(/aria-invalid=/g)).toHaveLength(expected.length);
  expect(html.match(/\sautofocus[\s>]/g)).toHaveLength(1);
  expect(html).toMatch(/<div class="error-summary"[^>]* tabindex="-1" autofocus>/);
}

async function publicJob(id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${ctx.base}/public/jobs/${id}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function events(jobId: string): Promise<string[]> {
  const rows = await ctx.t.db.selectFrom('change_events').select(['change']).where('job_id', '=', jobId).orderBy('seq').execute();
  return rows.map((r) => r.change);
}

describe('submitting and verifying', () => {
  it('never serves an unverified submission; the verified one is served as direct/career_site with truthful field_sources and a created event', async () => {
    const body = vacancy('acme-robotics.test');
    const client = new SiteClient(ctx.base);
    const res = await submit(client, body);
    expect(res.status).toBe(202);
    expect(((await res.json()) as { status: string }).status).toBe('sent');
    const mail = await takeMail('hr@acme-robotics.test', /Verify your vacancy/);
    expect(mail.text).toContain('Senior Backend Engineer at Acme Robotics');

    // Pending: stored, but nowhere in the ledger or the served listing.
    const pending = await ctx.t.db.selectFrom('submissions').selectAll().where('email', '=', 'hr@acme-robotics.test').executeTakeFirstOrThrow();
    expect(pending.status).toBe('pending');
    expect(await ctx.t.db.selectFrom('jobs').select('id').where('provider_id', '=', 'submissions').execute()).toEqual([]);
    const listed = (await (await fetch(`${ctx.base}/public/jobs?q=${encodeURIComponent('Senior Backend Engineer Acme')}`)).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);

    const verified = await post(client, '/public/submissions/verify', { token: tokenOf(mail, '/submit/verify') });
    expect(verified.status).toBe(200);
    const answer = (await verified.json()) as { status: string; job_id: string; served: boolean };
    expect(answer).toMatchObject({ status: 'published', served: true });
    await takeMail('hr@acme-robotics.test', /is published/);

    const { status, body: job } = await publicJob(answer.job_id);
    expect(status).toBe(200);
    const data = job.data as Record<string, unknown>;
    expect(data).toMatchObject({
      title: 'Senior Backend Engineer',
      company: 'Acme Robotics',
      source: 'submissions',
      source_type: 'career_site',
      provider_type: 'direct',
      status: 'live',
      employment_type: 'Full-time',
      remote: 'hybrid',
      remote_inferred: false,
      country: 'DE',
      city: 'Berlin',
      salary_min: 70000,
      salary_max: 85000,
      salary_currency: 'EUR',
      salary_period: 'annual',
      salary_source: 'structured',
      apply_url: 'https://careers.acme-robotics.test/apply/backend',
      has_description: true,
    });
    expect(data.field_sources).toEqual({
      remote: 'published',
      employment_type: 'published',
      category: 'inferred',
      seniority: 'inferred',
      salary: 'published',
      location: 'published',
      posted_at: 'published',
      description: 'published',
      source_type: 'inferred',
      // Served at read time (issue 19): the domain is the service's identity key, no US state, no stated closing date.
      company_domain: 'inferred',
      state: 'absent',
      expires_at: 'absent',
      // Reality signals (issue 15): a first publication, dated by the employer.
      repost_count: 'inferred',
      first_seen_lag_hours: 'inferred',
    });
    expect(data).toMatchObject({ repost_count: 0, first_seen_lag_hours: 0 });
    expect(String(data.description)).toContain('<p>You build the services our robots talk to.</p>');
    expect(await events(answer.job_id)).toEqual(['created']);

    // In the served listings too, filtered by provider and source type.
    const byProvider = (await (await fetch(`${ctx.base}/public/jobs?provider=submissions`)).json()) as { data: { id: string }[] };
    expect(byProvider.data.map((j) => j.id)).toContain(answer.job_id);
    const bySourceType = (await (await fetch(`${ctx.base}/public/jobs?source_type=career_site&q=Acme`)).json()) as { data: { id: string; provider_type: string }[] };
    expect(bySourceType.data.find((j) => j.id === answer.job_id)?.provider_type).toBe('direct');

    // The verification link works once.
    const again = await post(new SiteClient(ctx.base), '/public/submissions/verify', { token: tokenOf(mail, '/submit/verify') });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: string }).error).toBe('link_invalid');
  });

  it('marks fields the employer left out as absent, never guessed', async () => {
    const { jobId } = await publish(vacancy('plain-bakery.test', { title: 'Baker', company: 'Plain Bakery', remote: '', salary_min: '', salary_max: '', salary_currency: '', salary_period: '', location: 'Lyon, France', description: 'Early mornings, good bread, a friendly team of six people.' }));
    const data = (await publicJob(jobId)).body.data as Record<string, unknown>;
    expect(data.salary_min).toBeUndefined();
    expect(data.salary_min_annual_eur).toBeNull();
    expect((data.field_sources as Record<string, string>).salary).toBe('absent');
    expect(['absent', 'inferred']).toContain((data.field_sources as Record<string, string>).remote);
  });

  it('serves hostile text as text: markup in the description is escaped, controls and bidi overrides removed', async () => {
    const { jobId } = await publish(vacancy('hostile.test', {
      title: 'Cook\u202e\u0007 <b>now</b>',
      description: '<img src=x onerror=alert(1)><script>alert(2)</script> We cook fresh food every day for our guests.',
    }));
    const data = (await publicJob(jobId)).body.data as { title: string; description: string };
    expect(data.title).toBe('Cook <b>now</b>');
    expect(data.description).not.toMatch(/<img|<script/);
    expect(data.description).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('accepts an apply URL on a known ATS host, and an address at a subdomain of the company', async () => {
    const { jobId } = await publish(vacancy('ats-user.test', { apply_url: 'https://jobs.lever.co/ats-user/123', email: 'people@jobs.ats-user.test' }));
    expect((await publicJob(jobId)).status).toBe(200);
  });
});

describe('a company whose domain is on the public e-mail provider list', () => {
  it('is refused by default with a message that says how to be accepted, and submits once the operator accepts the domain', async () => {
    const before = await counts();
    const client = new SiteClient(ctx.base);
    const refused = await post(client, '/public/submissions', { ...vacancy('facebook.com'), altcha: await client.altcha() });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { error: string; message: string };
    expect(body.error).toBe('bad_domain');
    expect(body.message).toMatch(/facebook\.com is on the list of public e-mail providers.*ask the operator of this service to accept it/);
    expect(await counts()).toEqual(before);

    // The operator accepted it (JOBLEDGER_SUBMISSION_EMPLOYER_DOMAINS=facebook.com): verification at the domain as for anyone.
    const accepting = new SubmissionDesk({ db: ctx.t.db, log: pino({ level: 'silent' }), mailer: testSiteOptions(ctx.sink, { siteUrl: ctx.base }).mailer, siteUrl: ctx.base, linkTtlSeconds: 900, employerDomains: ['FaceBook.com'] });
    const parsed = accepting.parse(vacancy('facebook.com'));
    expect(parsed).toMatchObject({ companyDomain: 'facebook.com', email: 'hr@facebook.com' });
    expect(() => accepting.parse(vacancy('gmail.com'))).toThrow(/gmail\.com is on the list of public e-mail providers/);
    await accepting.submit(parsed);
    const mail = await ctx.sink.waitFor('hr@facebook.com', /Verify your vacancy/);
    const published = await accepting.verify(new URL(linkIn(mail, '/submit/verify')).searchParams.get('token'));
    expect(published).toMatchObject({ served: true });
    expect((await publicJob(published.jobId)).status).toBe(200);
  });
});

describe('refusals store nothing', () => {
  const cases: { name: string; body: (d: string) => Record<string, unknown>; status: number; error: string; altcha?: boolean }[] = [
    { name: 'no human-verification token', body: (d) => vacancy(d), status: 403, error: 'verification_failed', altcha: false },
    { name: 'a missing title', body: (d) => vacancy(d, { title: '' }), status: 422, error: 'bad_input' },
    { name: 'a missing description', body: (d) => { const v: Record<string, unknown> = vacancy(d); delete v.description; return v; }, status: 422, error: 'bad_input' },
    { name: 'an unknown employment type', body: (d) => vacancy(d, { employment_type: 'Forever' }), status: 422, error: 'bad_input' },
    { name: 'an apply URL on another domain', body: (d) => vacancy(d, { apply_url: 'https://evil.example.net/apply' }), status: 422, error: 'bad_apply_url' },
    { name: 'an apply URL on a job board', body: (d) => vacancy(d, { apply_url: 'https://www.linkedin.com/jobs/view/1' }), status: 422, error: 'bad_apply_url' },
    { name: 'a javascript: apply URL', body: (d) => vacancy(d, { apply_url: 'javascript:alert(1)' }), status: 422, error: 'bad_apply_url' },
    { name: 'an apply URL with credentials', body: (d) => vacancy(d, { apply_url: `https://user:pw@${d}/apply` }), status: 422, error: 'bad_apply_url' },
    { name: 'an address outside the company domain', body: (d) => vacancy(d, { email: 'someone@other.test' }), status: 422, error: 'email_not_at_domain' },
    { name: 'a public e-mail provider as company domain', body: () => vacancy('gmail.com'), status: 422, error: 'bad_domain' },
    { name: 'an IP address as company domain', body: () => vacancy('127.0.0.1'), status: 422, error: 'bad_domain' },
    { name: 'a salary without currency', body: (d) => vacancy(d, { salary_currency: '' }), status: 422, error: 'bad_input' },
    { name: 'a salary range upside down', body: (d) => vacancy(d, { salary_min: '90000', salary_max: '10' }), status: 422, error: 'bad_input' },
    { name: 'a non-numeric salary', body: (d) => vacancy(d, { salary_min: '1e9' }), status: 422, error: 'bad_input' },
    { name: 'a field that is not text', body: (d) => ({ ...vacancy(d), title: { $ne: 1 } }), status: 422, error: 'bad_input' },
    { name: 'a title that is too long', body: (d) => vacancy(d, { title: 'x'.repeat(201) }), status: 422, error: 'bad_input' },
  ];
  for (const c of cases) {
    it(`refuses ${c.name} (${c.status} ${c.error})`, async () => {
      const before = await counts();
      const client = new SiteClient(ctx.base);
      const res = await post(client, '/public/submissions', { ...c.body('refused.test'), ...(c.altcha === false ? {} : { altcha: await client.altcha() }) });
      expect(res.status).toBe(c.status);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe(c.error);
      expect(body.message.length).toBeGreaterThan(10);
      expect(await counts()).toEqual(before);
    });
  }

  it('refuses a form without the CSRF token, and an oversized body, with the catalogue shape', async () => {
    const before = await counts();
    const client = new SiteClient(ctx.base);
    const noCsrf = await client.request('POST', '/public/submissions', { json: { ...vacancy('refused.test'), altcha: await client.altcha() } });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { error: string }).error).toBe('csrf_failed');
    const huge = await post(client, '/public/submissions', { ...vacancy('refused.test', { description: 'x'.repeat(200_000) }), altcha: await client.altcha() });
    expect(huge.status).toBe(413);
    expect(await counts()).toEqual(before);
  });

  it('gives a browser its form back with what it typed and the message, storing nothing', async () => {
    const before = await counts();
    const client = new SiteClient(ctx.base);
    await client.request('GET', '/submit');
    const res = await client.request('POST', '/public/submissions', {
      form: { ...vacancy('refused.test', { apply_url: 'https://elsewhere.test/apply', title: '<script>alert(1)</script>' }), _csrf: await client.csrf(), altcha: await client.altcha() },
    });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain('must be on refused.test or a known applicant-tracking system');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>alert(1)');
    expect(await counts()).toEqual(before);
  });

  /** Several fields wrong at once: empty title, company and location, a malformed apply URL and salary, no company domain. */
  const severalWrong = (d: string) => vacancy(d, { title: '', company: '', location: '', apply_url: 'not a url', salary_min: 'lots', company_domain: '' });

  it('gives a browser every refused field at once: a summary linking to each, each field marked with its own message', async () => {
    const before = await counts();
    const client = new SiteClient(ctx.base);
    await client.request('GET', '/submit');
    const res = await client.request('POST', '/public/submissions', { form: { ...severalWrong('refused.test'), _csrf: await client.csrf(), altcha: await client.altcha() } });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(refusedPage(html).title).toBe('Error: Post a vacancy · jobledger');
    expect(html).toContain('<h2 id="submit-error-title">The vacancy was not sent</h2>');
    // The domain is refused too, so the apply URL's example names example.com.
    expectEveryFieldMarked(html, [...contentErrors('example.com'), ['s-domain', '“Company domain” must be the employer\'s domain name, e.g. example.com.']]);
    // What was typed is kept.
    expect(controlTag(html, 's-apply')).toContain('value="not a url"');
    expect(controlTag(html, 's-salary-min')).toContain('value="lots"');
    expect(controlTag(html, 's-email')).toContain('value="hr@refused.test"');
    expect(html).toContain('You build the services our robots talk to.');
    expect(await counts()).toEqual(before);
  });

  it('checks the apply URL and the address against the company domain only once the domain is valid', async () => {
    const client = new SiteClient(ctx.base);
    await client.request('GET', '/submit');
    const res = await client.request('POST', '/public/submissions', {
      form: { ...vacancy('refused.test', { apply_url: 'https://elsewhere.test/apply', email: 'me@other.test', salary_min: '90000', salary_max: '10', salary_currency: '', salary_period: '' }), _csrf: await client.csrf(), altcha: await client.altcha() },
    });
    expect(res.status).toBe(422);
    expectEveryFieldMarked(await res.text(), [
      ['s-apply', '“Apply URL” must be on refused.test or a known applicant-tracking system (such as Ashby, Greenhouse or Lever); elsewhere.test is neither.'],
      ['s-salary-max', '“Salary to” must not be less than “Salary from”.'],
      ['s-currency', '“Currency” is required with a salary: an ISO 4217 code such as EUR, USD or GBP.'],
      ['s-period', '“Per” is required with a salary: one of annual, monthly, weekly, daily, hourly.'],
      ['s-email', 'The verification goes to an address at refused.test; me@other.test is not one.'],
    ]);
  });

  it('answers an API caller with the first refused field only, the body unchanged', async () => {
    const before = await counts();
    const client = new SiteClient(ctx.base);
    // The company domain is checked first (the apply URL and the address are checked against it).
    const noDomain = await post(client, '/public/submissions', { ...severalWrong('refused.test'), altcha: await client.altcha() });
    expect(noDomain.status).toBe(422);
    expect(noDomain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    // Byte for byte the answer of the checks that stopped at the first refusal (recorded before they collected every field's).
    expect(await noDomain.text()).toBe(refusalBody('bad_domain', '"company_domain" must be the employer\'s domain name, e.g. example.com.'));
    const withDomain = await post(client, '/public/submissions', { ...severalWrong('refused.test'), company_domain: 'refused.test', email: 'x@other.test', altcha: await client.altcha() });
    expect(await withDomain.text()).toBe(refusalBody('bad_input', '"title" is required, e.g. Backend Engineer.'));
    expect(await counts()).toEqual(before);
  });
});

describe('limits and enumeration', () => {
  it('answers the same for a fresh address and one that submitted before, and limits submissions per e-mail address', async () => {
    const client = new SiteClient(ctx.base);
    const first = await submit(client, vacancy('limited.test'));
    const second = await submit(client, vacancy('limited.test'));
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(await first.text()).toBe(await second.text());
    for (let i = 0; i < 3; i++) expect((await submit(client, vacancy('limited.test'))).status).toBe(202);
    const before = await counts();
    const over = await submit(client, vacancy('limited.test'));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await over.json()) as { error: string }).error).toBe('rate_limited');
    expect(await counts()).toEqual(before);
  });
});

describe('the submitter\'s edit-or-close link', () => {
  it('edits the vacancy (updated on the feed), and refuses a bad edit without changing anything', async () => {
    const { jobId, manage } = await publish(vacancy('editing.test'));
    const client = new SiteClient(ctx.base);
    const page = await client.request('GET', `/submit/manage?token=${manage}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Senior Backend Engineer');

    const bad = await post(client, '/public/submissions/manage', { token: manage, action: 'update', ...vacancy('editing.test', { apply_url: 'https://indeed.com/x' }) });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: string }).error).toBe('bad_apply_url');
    expect(((await publicJob(jobId)).body.data as { apply_url: string }).apply_url).toBe('https://careers.editing.test/apply/backend');

    const res = await post(client, '/public/submissions/manage', { token: manage, action: 'update', ...vacancy('editing.test', { title: 'Staff Backend Engineer' }) });
    expect(res.status).toBe(200);
    expect(((await publicJob(jobId)).body.data as { title: string }).title).toBe('Staff Backend Engineer');
    expect(await events(jobId)).toEqual(['created', 'updated']);

    // Confirming changes no served content: no event, last_verified_at moves.
    const verifiedBefore = (await ctx.t.db.selectFrom('jobs').select('last_verified_at').where('id', '=', jobId).executeTakeFirstOrThrow()).last_verified_at;
    expect((await post(client, '/public/submissions/manage', { token: manage, action: 'confirm' })).status).toBe(200);
    const verifiedAfter = (await ctx.t.db.selectFrom('jobs').select('last_verified_at').where('id', '=', jobId).executeTakeFirstOrThrow()).last_verified_at;
    expect(verifiedAfter.getTime()).toBeGreaterThanOrEqual(verifiedBefore.getTime());
    expect(await events(jobId)).toEqual(['created', 'updated']);
  });

  it('shows every refused field of an edit at once, and answers an API caller the first only; nothing changes', async () => {
    const { jobId, manage } = await publish(vacancy('editing-many.test'));
    const wrong = { title: '', company: '', location: '', apply_url: 'not a url', salary_min: 'lots' };
    const client = new SiteClient(ctx.base);
    await client.request('GET', `/submit/manage?token=${manage}`);
    const page = await client.request('POST', '/public/submissions/manage', { form: { ...vacancy('editing-many.test', wrong), token: manage, action: 'update', _csrf: await client.csrf() } });
    expect(page.status).toBe(422);
    const html = await page.text();
    expect(refusedPage(html).title).toBe('Error: Your vacancy · jobledger');
    expect(html).toContain('<h2 id="submit-error-title">The changes were not saved</h2>');
    expectEveryFieldMarked(html, contentErrors('editing-many.test'));
    expect(controlTag(html, 's-apply')).toContain('value="not a url"');

    const api = await post(client, '/public/submissions/manage', { token: manage, action: 'update', ...vacancy('editing-many.test', wrong) });
    expect(api.status).toBe(422);
    expect(await api.text()).toBe(refusalBody('bad_input', '"title" is required, e.g. Backend Engineer.'));
    expect(((await publicJob(jobId)).body.data as { title: string }).title).toBe('Senior Backend Engineer');
    expect(await events(jobId)).toEqual(['created']);
  });

  it('closes the vacancy as expired_upstream with a delisted event; the link then refuses edits', async () => {
    const { jobId, manage } = await publish(vacancy('closing.test'));
    const client = new SiteClient(ctx.base);
    const res = await post(client, '/public/submissions/manage', { token: manage, action: 'close' });
    expect(res.status).toBe(200);
    const row = await ctx.t.db.selectFrom('jobs').select(['status', 'closed_reason', 'upstream_expired_at']).where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(row.status).toBe('closed');
    expect(row.closed_reason).toBe('expired_upstream');
    expect(row.upstream_expired_at).not.toBeNull();
    expect(await events(jobId)).toEqual(['created', 'delisted']);
    expect((await publicJob(jobId)).status).toBe(404);

    const again = await post(client, '/public/submissions/manage', { token: manage, action: 'update', ...vacancy('closing.test') });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toBe('submission_closed');
  });

  it('refuses unknown, malformed and hostile tokens alike', async () => {
    const client = new SiteClient(ctx.base);
    for (const token of ['', 'x'.repeat(43), { $gt: '' }, 'a'.repeat(5000)]) {
      const res = await post(client, '/public/submissions/manage', { token, action: 'close' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('link_invalid');
    }
    const page = await client.request('GET', '/submit/manage?token=nope');
    expect(page.status).toBe(400);
  });
});

describe('lifecycle', () => {
  it(`reminds after ${RECONFIRM_DAYS} days with a new link, and closes not_seen ${GRACE_DAYS} days later without a confirmation`, async () => {
    const { jobId, manage, submissionId } = await publish(vacancy('lapsing.test'));
    const now = Date.now();
    // Nothing is due yet.
    expect((await ctx.desk.sweep(new Date(now + DAY_MS))).reminded).toBe(0);

    const swept = await ctx.desk.sweep(new Date(now + (RECONFIRM_DAYS + 1) * DAY_MS));
    expect(swept.reminded).toBeGreaterThanOrEqual(1);
    const reminder = await takeMail('hr@lapsing.test', /still open/);
    const fresh = tokenOf(reminder, '/submit/manage');
    expect(fresh).not.toBe(manage);
    // The old link is replaced; the new one opens the page. A second sweep sends no second reminder.
    expect((await new SiteClient(ctx.base).request('GET', `/submit/manage?token=${manage}`)).status).toBe(400);
    expect((await new SiteClient(ctx.base).request('GET', `/submit/manage?token=${fresh}`)).status).toBe(200);
    await ctx.desk.sweep(new Date(now + (RECONFIRM_DAYS + 2) * DAY_MS));
    expect(ctx.sink.messages.filter((m) => m.to.includes('hr@lapsing.test'))).toEqual([]);

    const lapsed = await ctx.desk.sweep(new Date(now + (RECONFIRM_DAYS + GRACE_DAYS + 1) * DAY_MS));
    expect(lapsed.lapsed).toBeGreaterThanOrEqual(1);
    const row = await ctx.t.db.selectFrom('jobs').select(['status', 'closed_reason']).where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'closed', closed_reason: 'not_seen' });
    expect(await events(jobId)).toEqual(['created', 'delisted']);
    expect((await ctx.t.db.selectFrom('submissions').select('status').where('id', '=', submissionId).executeTakeFirstOrThrow()).status).toBe('lapsed');
  });

  it('keeps a confirmed vacancy open past the first reminder', async () => {
    const { jobId, manage } = await publish(vacancy('confirming.test'));
    // Confirmed "today" (the real clock): a sweep 10 days on closes nothing.
    expect((await post(new SiteClient(ctx.base), '/public/submissions/manage', { token: manage, action: 'confirm' })).status).toBe(200);
    await ctx.desk.sweep(new Date(Date.now() + 10 * DAY_MS));
    expect((await ctx.t.db.selectFrom('jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow()).status).toBe('live');
  });

  it('lets the operator reject: a published vacancy is withheld (withdrawn), a pending one is never published', async () => {
    const { jobId, submissionId } = await publish(vacancy('rejected.test'));
    expect(await ctx.desk.reject(submissionId, 'not a real vacancy')).toBe(true);
    const row = await ctx.t.db.selectFrom('jobs').select(['status', 'withheld_kind', 'quality_rule_id']).where('id', '=', jobId).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'live', withheld_kind: 'quality_removed', quality_rule_id: 'submission.rejected' });
    expect(await events(jobId)).toEqual(['created', 'withdrawn']);
    expect((await publicJob(jobId)).status).toBe(404);
    expect(await ctx.desk.reject(submissionId, 'again')).toBe(false);
    expect(await ctx.desk.reject('not-a-uuid', 'x')).toBe(false);

    const client = new SiteClient(ctx.base);
    expect((await submit(client, vacancy('pending-rejected.test'))).status).toBe(202);
    const mail = await takeMail('hr@pending-rejected.test', /Verify your vacancy/);
    const pending = await ctx.t.db.selectFrom('submissions').select('id').where('email', '=', 'hr@pending-rejected.test').executeTakeFirstOrThrow();
    expect(await ctx.desk.reject(pending.id, 'spam')).toBe(true);
    const res = await post(client, '/public/submissions/verify', { token: tokenOf(mail, '/submit/verify') });
    expect(res.status).toBe(400);
    expect(await ctx.t.db.selectFrom('jobs').select('id').where('source_posting_id', '=', pending.id).execute()).toEqual([]);
  });

  it('withholds the vacancy of an employer that opted out, and says so', async () => {
    await ctx.t.db.insertInto('employer_optouts').values({ domain: 'optedout.test', verified_by: 'test', verified_at: new Date() }).execute();
    const client = new SiteClient(ctx.base);
    expect((await submit(client, vacancy('optedout.test'))).status).toBe(202);
    const token = tokenOf(await takeMail('hr@optedout.test', /Verify your vacancy/), '/submit/verify');
    const res = await post(client, '/public/submissions/verify', { token });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { status: string; served: boolean; job_id: string; rule: string };
    expect(answer).toMatchObject({ status: 'withheld', served: false, rule: 'employer.opted_out' });
    expect((await publicJob(answer.job_id)).status).toBe(404);
  });
  it('lists and rejects submissions from the CLI (jobledger submissions list / reject)', async () => {
    const { jobId, submissionId } = await publish(vacancy('cli-rejected.test'));
    const env = { DATABASE_URL: ctx.t.url, JOBLEDGER_DATA_DIR: '/tmp/jobledger-submissions-cli-test' };
    const listed = await runCli(['submissions', 'list', '--status', 'open'], env);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain(`${submissionId}  open`);
    expect(listed.output).toContain('"Senior Backend Engineer" at "Acme Robotics" (cli-rejected.test) from hr@cli-rejected.test');
    const rejected = await runCli(['submissions', 'reject', submissionId, '--reason', 'duplicate'], env);
    expect(rejected.code).toBe(0);
    expect(rejected.output).toContain(`submission ${submissionId} rejected`);
    expect(await events(jobId)).toEqual(['created', 'withdrawn']);
    const again = await runCli(['submissions', 'reject', submissionId], env);
    expect(again.code).toBe(1);
    expect(again.output).toContain('no submission');
  }, 120_000);
});
