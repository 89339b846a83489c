/**
 * The `jobledger` command line. Every command has `--help`; settings come from the environment
 * (`jobledger config` lists them with their defaults).
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { SingleBar, Presets } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { readFileSync } from 'node:fs';
import { configCheckText, configText, ConfigError } from '../config/config.ts';
import { CONNECTOR_IDS, isConnectorId, type ConnectorId } from '../ingest/connectors/registry.ts';
import { bareDomain } from '../domain/domain-name.ts';
import { createApiKey, KeyInputError, listApiKeys, renameApiKey, revokeApiKey, rotateApiKey } from '../access/api-keys.ts';
import { clearValidators, listTargets, upsertTarget } from '../store/crawl-targets.ts';
import { addOptout, listOptouts, OptoutInputError, revokeOptout } from '../store/optouts.ts';
import { seedDemoTargets } from '../ingest/bundled-feeds.ts';
import { countCorpusRows, seedBenchLedger } from '../bench/seed.ts';
import { createFetcher } from '../ingest/fetcher.ts';
import { verifyWebsites } from '../ingest/website-verifier.ts';
import { discoverBoards } from '../ingest/board-discovery.ts';
import { importTargets } from '../ingest/target-import.ts';
import { startDemoSources } from './demo.ts';
import { runImport } from './import.ts';
import { runMcp } from './mcp.ts';
import { openRuntime, type Runtime } from './runtime.ts';
import { serve } from './serve.ts';
import { runWorker } from './worker.ts';
import { SubmissionDesk } from '../ingest/submissions.ts';
import { createMailer } from '../mail/mailer.ts';

function countryCode(value: string): string {
  if (!/^[A-Za-z]{2}$/.test(value)) throw new InvalidArgumentError('expected an ISO-3166 alpha-2 code such as DE');
  return value.toUpperCase();
}

function futureDate(value: string): Date {
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(date.getTime())) throw new InvalidArgumentError('expected a date (YYYY-MM-DD) or an RFC 3339 timestamp');
  return date;
}

function provider(value: string): ConnectorId {
  if (!isConnectorId(value)) throw new InvalidArgumentError(`expected one of ${CONNECTOR_IDS.join(', ')}`);
  return value;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function share(value: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value.trim()) || n > 1) throw new InvalidArgumentError('expected a share between 0 and 1, e.g. 0.2');
  return n;
}

function seconds(value: string): number {
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('expected a duration such as 90s, 30m, 6h or 1d');
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** The package's version (package.json), printed by `jobledger --version`. */
const VERSION = (JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;

const program = new Command();
program
  .name('jobledger')
  .version(VERSION, '-V, --version', 'print the version of jobledger')
  .description('A self-hostable ledger and HTTP/JSON API of employer-direct job vacancies.')
  .showHelpAfterError()
  .addHelpText('after', '\nSettings come from environment variables; `jobledger config` lists them with their defaults.');

program
  .command('serve')
  .description('Run the API server (PORT, default 8080). Without DATABASE_URL it starts an embedded PostgreSQL in JOBLEDGER_DATA_DIR.')
  .option('--demo', 'first import the bundled real feeds (fixtures/) through a loopback replay server, and create a local key on the first run', false)
  .option('--no-worker', 'do not run the crawl worker in this process (default: JOBLEDGER_SERVE_WORKER, true); use when `jobledger worker` runs separately')
  .action(async (options: { demo: boolean; worker: boolean }) => {
    // commander sets worker=true unless --no-worker was given; only an explicit flag overrides the setting.
    await serve({ demo: options.demo, worker: options.worker === false ? false : undefined });
  });

program
  .command('worker')
  .description('Run the crawl worker: recrawl every enabled target on its interval, close what the sources prove dead (several may run; a target is never crawled twice at once).')
  .option('--demo', 'crawl the bundled real feeds from a loopback replay server instead of the real APIs', false)
  .action(async (options: { demo: boolean }) => {
    await runWorker({ demo: options.demo });
  });

program
  .command('ingest')
  .description('Crawl the configured targets once and update the ledger (works while the server runs).')
  .option('--demo', 'crawl the bundled real feeds from a loopback replay server instead of the real APIs', false)
  .option('--target <id...>', 'only these target ids (see `jobledger targets list`)')
  .option('--refetch', 'ask for full boards instead of conditional requests, so every posting is enriched and judged again (after an upgrade)', false)
  .action(onLedger('jobledger-ingest', async (rt, options: { demo: boolean; target?: string[]; refetch: boolean }) => {
    let baseUrls = rt.config.sources;
    let fetch = rt.config.fetch;
    let closeReplay: (() => Promise<void>) | undefined;
    let pageUrl: ((postingUrl: string) => string) | undefined;
    let targets;
    if (options.demo) {
      const demo = await startDemoSources(rt.config.fetch);
      closeReplay = () => demo.replay.close();
      baseUrls = demo.replay.baseUrls;
      pageUrl = demo.replay.pageUrl;
      fetch = demo.fetch;
      targets = await seedDemoTargets(rt.database.db);
      if (options.target) targets = targets.filter((t) => options.target!.includes(t.id));
    } else {
      targets = await listTargets(rt.database.db, { enabledOnly: true, ids: options.target });
    }
    if (options.refetch && targets.length > 0) {
      await clearValidators(rt.database.db, targets.map((t) => t.id));
      targets = await listTargets(rt.database.db, { ids: targets.map((t) => t.id) });
    }
    if (targets.length === 0) {
      rt.log.warn('no crawl targets: add one with `jobledger targets add`, or run `jobledger ingest --demo`');
    } else {
      const summary = await runImport(rt.database.db, rt.log, targets, { fetch, baseUrls, pageUrl }, { absence: rt.config.absence, probeLimit: rt.config.worker.probeLimit, careerSite: rt.config.careerSite, agencyKeys: rt.config.agencyKeys });
      // A failed board, or one skipped because another process holds its lease, is not imported: exit 1.
      if (summary.unfinished) {
        process.stderr.write(`jobledger ingest: ${summary.unfinished}\n`);
        process.exitCode = 1;
      }
    }
    await closeReplay?.();
  }, 'ingest'));

program
  .command('bench-seed')
  .description('Generate a benchmark ledger: N rows whose distributions follow the imported real corpus (imported first when missing), deterministic by seed (bench/README.md). Writes into DATABASE_URL (or the embedded ledger); meant for a database of its own.')
  .option('--rows <n>', 'rows to generate', positiveInteger, 1_000_000)
  .option('--seed <n>', 'seed: the same seed and anchor give the same rows', positiveInteger, 1)
  .option('--anchor <date>', 'end of the year of posting dates (YYYY-MM-DD or RFC 3339; default: start of today, UTC)', futureDate)
  .option('--closed-share <share>', 'share of closed rows, 0..1', share, 0.22)
  .option('--withheld-share <share>', 'share of withheld (live, not served) rows, 0..1', share, 0.01)
  .option('--database-url <url>', 'PostgreSQL to seed (default: DATABASE_URL, else the embedded ledger)')
  .action(async (options: { rows: number; seed: number; anchor?: Date; closedShare: number; withheldShare: number; databaseUrl?: string }) => {
    if (options.databaseUrl) process.env.DATABASE_URL = options.databaseUrl;
    await withLedger('jobledger-bench-seed', async (rt) => {
      const db = rt.database.db;
      if ((await countCorpusRows(db)) === 0) {
        rt.log.info('importing the bundled real feeds to sample their distributions');
        const demo = await startDemoSources(rt.config.fetch);
        try {
          const targets = await seedDemoTargets(db);
          await runImport(db, rt.log, targets, { fetch: demo.fetch, baseUrls: demo.replay.baseUrls, pageUrl: demo.replay.pageUrl }, { absence: rt.config.absence, probeLimit: 0 });
        } finally {
          await demo.replay.close();
        }
      }
      const bar = new SingleBar({ format: 'seeding {bar} {value}/{total} rows | {eta_formatted} left', hideCursor: true, stream: process.stderr, noTTYOutput: true, notTTYSchedule: 10_000 }, Presets.shades_classic);
      bar.start(options.rows, 0);
      const result = await seedBenchLedger(rt.database, { ...options, onProgress: (done) => bar.update(done) });
      bar.stop();
      process.stdout.write(`${result.rows} rows generated in ${result.seconds} s (load ${result.phases.load} s, indexes ${result.phases.indexes} s) from ${result.templates.served} served, ${result.templates.closed} closed and ${result.templates.withheld} withheld templates\n`);
    }, 'none');
  });

program
  .command('migrate')
  .description('Apply pending database migrations and exit (every command also migrates at start).')
  .action(async () => {
    const rt = await openRuntime({ applicationName: 'jobledger-migrate' });
    await rt.database.close();
  });

program
  .command('mcp')
  .description('Run the MCP server on stdio for an AI agent (tools search_jobs, get_job, list_companies, get_company, list_facets, recent_changes; see docs/mcp.md). Tool calls are metered on the API key like REST calls. Logs go to stderr.')
  .addOption(new Option('--api-key <key>', 'the API key the tools call with').env('JOBLEDGER_API_KEY').makeOptionMandatory())
  .addOption(new Option('--url <base>', 'call a running jobledger at this base URL instead of serving the configured ledger in process').env('JOBLEDGER_URL'))
  .action(async (options: { apiKey: string; url?: string }) => {
    await runMcp({ apiKey: options.apiKey, url: options.url });
  });

program
  .command('config')
  .description('List every environment variable the service reads, with its default. With --check: the effective values from this environment (secrets masked), exit 1 when one is invalid.')
  .option('--check', 'print the effective value of every setting (secrets masked) and exit non-zero when any is invalid', false)
  .action((options: { check: boolean }) => {
    if (!options.check) {
      process.stdout.write(configText());
      return;
    }
    const { text, ok } = configCheckText();
    process.stdout.write(text);
    if (!ok) process.exitCode = 1;
  });

/** Run `work` against the ledger (with the statement timeout `statementTimeout`, see openRuntime), closing it afterwards. */
async function withLedger(applicationName: string, work: (rt: Runtime) => Promise<void>, statementTimeout?: 'api' | 'ingest' | 'none'): Promise<void> {
  const rt = await openRuntime({ applicationName, statementTimeout });
  try {
    await work(rt);
  } finally {
    await rt.database.close();
  }
}

/** A command's action: `work` runs against the ledger (see withLedger) with the arguments and options commander passes. */
function onLedger<A extends unknown[]>(applicationName: string, work: (rt: Runtime, ...args: A) => Promise<void>, statementTimeout?: 'api' | 'ingest' | 'none'): (...args: A) => Promise<void> {
  return (...args) => withLedger(applicationName, (rt) => work(rt, ...args), statementTimeout);
}

const keys = program
  .command('keys')
  .description('Create, list, rotate, revoke and rename API keys. Secrets are shown once and stored only as SHA-256. KEY is a key id or its prefix (jl_xxxxxxxx).');

/** Declare `jobledger keys <name> <key>`: a subcommand on one key, named by its id or prefix. */
function keyCommand(name: string, description: string): Command {
  return keys.command(name).description(description).argument('<key>', 'key id or prefix');
}

keys
  .command('create')
  .description('Create a key and print its secret once.')
  .requiredOption('--plan <plan>', 'plan id: explore, growth, signal or scale')
  .option('--name <name>', 'a label for the key')
  .option('--country <cc>', 'lock the key to one country (single_country)', countryCode)
  .option('--expires <date>', 'expiry date (YYYY-MM-DD, UTC midnight) or RFC 3339 timestamp', futureDate)
  .option('--account <id>', 'add the key to an existing account instead of a new one')
  .action(onLedger('jobledger-keys', async (rt, options: { plan: string; name?: string; country?: string; expires?: Date; account?: string }) => {
    const key = await createApiKey(rt.database.db, {
      planId: options.plan,
      name: options.name,
      countryLock: options.country,
      expiresAt: options.expires,
      accountId: options.account,
    });
    process.stdout.write(`key ${key.id} (${key.keyPrefix}, plan ${key.planId}, account ${key.accountId})\nsecret (shown once): ${key.secret}\n`);
  }));
keys
  .command('list')
  .description('List keys: id, prefix, plan, status, country lock, records used this month (UTC), created, last used (to the minute), name. Never secrets.')
  .action(onLedger('jobledger-keys', async (rt) => {
    for (const k of await listApiKeys(rt.database.db)) {
      process.stdout.write(
        `${k.id}  ${k.keyPrefix}  ${k.planId.padEnd(8)} ${k.status.padEnd(8)} ${k.countryLock ?? '--'}  ${String(k.recordsThisMonth).padStart(9)} records  ${k.createdAt.toISOString()}  last used ${k.lastUsedAt ? k.lastUsedAt.toISOString() : 'never'}  ${k.name ?? ''}\n`,
      );
    }
  }));
keyCommand('rotate', 'Give a key a new secret, printed once. The old secret stops working at once; id, prefix, plan, meters and usage history stay.')
  .action(onLedger('jobledger-keys', async (rt, handle: string) => {
    const key = await rotateApiKey(rt.database.db, handle);
    process.stdout.write(`key ${key.id} (${key.keyPrefix}) rotated\nsecret (shown once): ${key.secret}\n`);
  }));
keyCommand('revoke', 'Revoke a key at once and for good; the row is kept for audit.')
  .action(onLedger('jobledger-keys', async (rt, handle: string) => {
    const result = await revokeApiKey(rt.database.db, handle);
    process.stdout.write(`key ${result.id} (${result.keyPrefix}) ${result.already ? 'was already revoked at' : 'revoked at'} ${result.revokedAt.toISOString()}\n`);
  }));
keyCommand('rename', 'Set the label of a key (an empty name clears it).')
  .argument('<name>', 'the new label')
  .action(onLedger('jobledger-keys', async (rt, handle: string, name: string) => {
    const result = await renameApiKey(rt.database.db, handle, name);
    process.stdout.write(`key ${result.id} (${result.keyPrefix}) ${result.name ? `is now named "${result.name}"` : 'has no name now'}\n`);
  }));

const companies = program.command('companies').description('The employer directory.');
companies
  .command('verify-websites')
  .description("Fetch each company's home page (https://<domain>/) through the guarded fetcher and publish the website where the company's own name appears on it.")
  .option('--limit <n>', 'at most this many companies, least recently checked first', positiveInteger, 100)
  .option('--max-age-days <days>', 're-check companies last checked longer ago than this', positiveInteger, 30)
  .action(onLedger('jobledger-websites', async (rt, options: { limit: number; maxAgeDays: number }) => {
    const fetcher = createFetcher(rt.config.fetch, rt.log);
    try {
      const checks = await verifyWebsites(rt.database.db, fetcher, { now: new Date(), limit: options.limit, maxAgeDays: options.maxAgeDays, log: rt.log });
      for (const c of checks) process.stdout.write(`${c.slug.padEnd(40)} ${c.domain.padEnd(30)} ${c.outcome}${c.website ? ` ${c.website}` : ''}${c.error ? ` (${c.error})` : ''}\n`);
      process.stdout.write(`${checks.length} checked, ${checks.filter((c) => c.outcome === 'verified').length} verified\n`);
    } finally {
      await fetcher.close();
    }
  }));

const targets = program.command('targets').description('Manage the boards and feeds the service crawls.');
const targetsAdd = targets
  .command('add')
  .description('Add (or update) a crawl target: an ATS board or feed (--board), or a company careers page (--provider career_site --url).')
  .requiredOption('--provider <provider>', `one of ${CONNECTOR_IDS.join(', ')}`, provider)
  .option('--board <board>', 'board token (Ashby, Greenhouse), site (Lever), company (SmartRecruiters, Recruitee, Personio), account (Workable), {host}/{tenant}/{site} (Workday) or announcement file (USAJOBS)')
  .option('--url <url>', 'career_site only: the careers page, e.g. https://example.com/careers')
  .option('--company <name>', "the employer's display name (Ashby and Lever payloads carry none)")
  .option('--domain <domain>', "the employer's own bare domain, when known (career_site: the site owner's domain; default the URL's registrable domain)")
  .option('--interval <duration>', 'recrawl interval, e.g. 6h', seconds)
  .addHelpText('after', '\nExamples:\n  jobledger targets add --provider greenhouse --board acme --domain acme.com\n  jobledger targets add --provider career_site --url https://example.com/careers --company "Example Inc." --domain example.com\n');
targetsAdd.action(async (options: { provider: ConnectorId; board?: string; url?: string; company?: string; domain?: string; interval?: number }) => {
  let board: string;
  let domain = options.domain;
  if (domain !== undefined) {
    const bare = bareDomain(domain);
    if (!bare) targetsAdd.error(`error: --domain "${domain}" is not a domain name (example: example.com)`);
    domain = bare;
  }
  if (options.provider === 'career_site') {
    if (options.board !== undefined || options.url === undefined) targetsAdd.error('error: --provider career_site takes --url <careers page URL>, not --board');
    let url: URL | undefined;
    try {
      url = new URL(options.url!);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
      targetsAdd.error(`error: --url "${options.url}" is not an http(s) URL (example: https://example.com/careers)`);
    }
    url!.hash = '';
    board = url!.href;
    domain ??= bareDomain(url!.hostname);
  } else {
    if (options.url !== undefined || options.board === undefined) targetsAdd.error(`error: --provider ${options.provider} takes --board, not --url`);
    board = options.board!;
  }
  await withLedger('jobledger-targets', async (rt) => {
    const id = await upsertTarget(rt.database.db, {
      providerId: options.provider,
      board,
      companyName: options.company,
      companyDomain: domain,
      intervalSeconds: options.interval,
    });
    process.stdout.write(`target ${id}\n`);
  });
});
targets
  .command('list')
  .description('List crawl targets and how their last crawl went.')
  .action(onLedger('jobledger-targets', async (rt) => {
    for (const t of await listTargets(rt.database.db)) {
      const last = t.last_success_at ? t.last_success_at.toISOString() : 'never';
      process.stdout.write(`${t.id.padEnd(40)} ${t.enabled ? 'enabled ' : 'disabled'} last success ${last}${t.last_error ? `  last error: ${t.last_error}` : ''}\n`);
    }
  }));

targets
  .command('discover')
  .description('Fetch a careers page (or https://DOMAIN/) and name the ATS board(s) behind it, or its JobPosting career site; --yes adds them.')
  .argument('<careers-url-or-domain>', 'the careers page URL, or the company domain')
  .option('--yes', 'add the boards found as crawl targets (default: print what would be added)')
  .option('--company <name>', "the employer's display name for the targets added")
  .addHelpText('after', '\nExamples:\n  jobledger targets discover https://www.example.com/careers\n  jobledger targets discover example.com --yes --company "Example Inc."\n')
  .action(onLedger('jobledger-targets', async (rt, input: string, options: { yes?: boolean; company?: string }) => {
    const fetcher = createFetcher(rt.config.fetch, rt.log);
    try {
      let found;
      try {
        found = await discoverBoards(fetcher, input);
      } catch (err) {
        process.stderr.write(`error: could not read ${input}: ${(err as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      if (found.boards.length === 0) {
        process.stderr.write(`no ATS board and no JobPosting found on ${found.pageUrl}\n`);
        process.exitCode = 1;
        return;
      }
      const domain = bareDomain(new URL(found.pageUrl).hostname);
      for (const b of found.boards) {
        const supported = isConnectorId(b.provider);
        if (options.yes && supported) {
          const id = await upsertTarget(rt.database.db, { providerId: b.provider, board: b.board, companyName: options.company, companyDomain: domain });
          process.stdout.write(`added ${id}  (from ${b.evidence})\n`);
        } else {
          process.stdout.write(`${supported ? 'would add' : 'found (no connector for this provider yet)'} ${b.provider}:${b.board}  (from ${b.evidence})\n`);
        }
      }
    } finally {
      await fetcher.close();
    }
  }));
targets
  .command('import')
  .description('Add many crawl targets from a CSV file with the columns provider, board, company, domain; refused rows are reported, existing targets kept.')
  .argument('<file>', 'CSV file with a header row')
  .addHelpText('after', '\nExample file:\n  provider,board,company,domain\n  greenhouse,acme,Acme Inc.,acme.com\n  career_site,https://example.com/careers,Example Inc.,example.com\n')
  .action(async (file: string) => {
    let text: Buffer;
    try {
      text = await readFile(file);
    } catch (err) {
      process.stderr.write(`error: cannot read ${file}: ${(err as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    await withLedger('jobledger-targets', async (rt) => {
      let report;
      try {
        report = await importTargets(rt.database.db, text);
      } catch (err) {
        process.stderr.write(`error: ${file}: ${(err as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      for (const id of report.added) process.stdout.write(`added ${id}\n`);
      for (const r of report.refused) process.stdout.write(`refused line ${r.line}: ${r.reason}\n`);
      process.stdout.write(`${report.added.length} added, ${report.present.length} already present, ${report.refused.length} refused\n`);
      if (report.refused.length > 0) process.exitCode = 2;
    });
  });

const optout = program
  .command('optout')
  .description('Record verified employer opt-outs: every row of the employer is withheld as optout_hidden (never served).');
optout
  .command('add')
  .description('Record a verified opt-out and hide the employer\'s rows now (served rows get a `withdrawn` change event).')
  .option('--domain <domain>', "the employer's domain, e.g. example.com")
  .option('--company <slug>', 'the employer\'s company slug (as in company_slug)')
  .requiredOption('--verified-by <text>', 'who verified the request and how, e.g. "reply from hr@example.com, ticket 123"')
  .option('--verified-at <date>', 'when it was verified (YYYY-MM-DD or RFC 3339; default now)', futureDate)
  .option('--note <text>', 'anything else worth keeping')
  .action(onLedger('jobledger-optout', async (rt, options: { domain?: string; company?: string; verifiedBy: string; verifiedAt?: Date; note?: string }) => {
    const result = await addOptout(rt.database.db, {
      domain: options.domain,
      companySlug: options.company,
      verifiedBy: options.verifiedBy,
      verifiedAt: options.verifiedAt ?? new Date(),
      note: options.note,
    });
    process.stdout.write(`opt-out ${result.id} recorded: ${result.hidden} rows hidden (${result.withdrawn} were served and are withdrawn)\n`);
  }));
optout
  .command('list')
  .description('List opt-outs, active and revoked.')
  .action(onLedger('jobledger-optout', async (rt) => {
    for (const o of await listOptouts(rt.database.db)) {
      const who = [o.domain, o.companySlug].filter(Boolean).join(' / ');
      process.stdout.write(`${o.id.padStart(4)}  ${o.revokedAt ? `revoked ${o.revokedAt.toISOString()}` : 'active'}  ${who}  verified ${o.verifiedAt.toISOString()} by ${o.verifiedBy}${o.note ? `  (${o.note})` : ''}\n`);
    }
  }));
optout
  .command('revoke')
  .description('Revoke an opt-out; the employer\'s boards are fetched in full on their next crawl and their rows judged again.')
  .argument('<id>', 'the opt-out id (see `jobledger optout list`)')
  .action(onLedger('jobledger-optout', async (rt, id: string) => {
    const { targetsReset } = await revokeOptout(rt.database.db, id);
    process.stdout.write(`opt-out ${id} revoked; ${targetsReset} crawl targets will be fetched in full on their next crawl\n`);
  }));

const submissionsCommand = program
  .command('submissions')
  .description('Direct submissions of vacancies by employers (docs/submissions.md): list, reject, and the reminder/lapse sweep.');

/** Run `work` with a submission desk on the ledger, mailing like serve does (SMTP or the outbox); closes both afterwards. */
async function withSubmissionDesk(work: (desk: SubmissionDesk) => Promise<void>): Promise<void> {
  await withLedger('jobledger-submissions', async ({ config, log, database }) => {
    const mailer = createMailer({ smtpUrl: config.site.smtpUrl, from: config.site.mailFrom, outboxDir: path.join(config.dataDir, 'outbox'), log });
    const siteUrl = (config.site.url ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
    try {
      await work(new SubmissionDesk({ db: database.db, log, mailer, siteUrl, linkTtlSeconds: config.site.linkTtlSeconds, logLinks: mailer.kind === 'outbox', employerDomains: config.site.employerDomains }));
    } finally {
      mailer.close();
    }
  });
}

submissionsCommand
  .command('list')
  .description('List submissions, newest first.')
  .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'open', 'closed', 'lapsed', 'rejected']))
  .option('--limit <n>', 'at most this many (default 100)', (v) => Number.parseInt(v, 10))
  .action(async (options: { status?: 'pending' | 'open' | 'closed' | 'lapsed' | 'rejected'; limit?: number }) => {
    await withSubmissionDesk(async (desk) => {
      for (const s of await desk.list({ status: options.status, limit: Number.isFinite(options.limit) ? options.limit : undefined })) {
        const confirmed = s.confirmed_at ? ` confirmed ${s.confirmed_at.toISOString()}` : '';
        process.stdout.write(`${s.id}  ${s.status.padEnd(8)} ${s.created_at.toISOString()}${confirmed}  ${JSON.stringify(s.title)} at ${JSON.stringify(s.company_name)} (${s.company_domain}) from ${s.email}${s.job_id ? `  job ${s.job_id}` : ''}${s.rejected_reason ? `  rejected: ${s.rejected_reason}` : ''}\n`);
      }
    });
  });
submissionsCommand
  .command('reject')
  .description('Reject a submission: a pending one is never published; a published one is withheld (served rows get a `withdrawn` change event).')
  .argument('<id>', 'the submission id (see `jobledger submissions list`)')
  .option('--reason <text>', 'why (kept with the submission)', 'rejected by the operator')
  .action(async (id: string, options: { reason: string }) => {
    await withSubmissionDesk(async (desk) => {
      if (!(await desk.reject(id, options.reason))) throw new Error(`no submission ${id} to reject (unknown, or rejected already)`);
      process.stdout.write(`submission ${id} rejected\n`);
    });
  });
submissionsCommand
  .command('sweep')
  .description('Send the due re-confirmation reminders, close unconfirmed vacancies as not_seen, discard expired pending ones (serve does this hourly).')
  .action(async () => {
    await withSubmissionDesk(async (desk) => {
      const result = await desk.sweep();
      process.stdout.write(`reminded ${result.reminded}, lapsed ${result.lapsed}, discarded ${result.discarded}\n`);
    });
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof KeyInputError || error instanceof OptoutInputError) {
    process.stderr.write(`jobledger: ${error.message}\n`);
  } else {
    process.stderr.write(`jobledger: ${(error as Error).message ?? String(error)}\n`);
  }
  process.exit(1);
});
