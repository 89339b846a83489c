/**
 * `jobledger serve`: the API server (and, with `--demo`, the bundled real feeds imported first).
 */
import { KeylessPageCache } from '../http/keyless-page-cache.ts';
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { Billing } from '../billing/billing.ts';
import { StripeCheckout } from '../billing/stripe-checkout.ts';
import { stripeSettings } from '../config/config.ts';
import { buildApp } from '../http/app.ts';
import { listenForKeyChanges, type KeyChangeListener } from '../store/key-changes.ts';
import { connect } from '../store/database.ts';
import { countServed } from '../store/job-queries.ts';
import type { DB } from '../store/schema.ts';
import { cursorSecret, siteSecret } from '../store/settings.ts';
import { createMailer, type Mailer } from '../mail/mailer.ts';
import { SubmissionDesk } from '../ingest/submissions.ts';
import path from 'node:path';
import { seedDemoTargets } from '../ingest/bundled-feeds.ts';
import { DEMO_KEY_PLAN, ensureDemoKey, startDemoSources } from './demo.ts';
import type { RunningChores } from '../chores/chores.ts';
import { runImport } from './import.ts';
import { openRequestCounters } from './request-counters.ts';
import { onShutdownSignal, openRuntime } from './runtime.ts';
import type { MetricsServer } from '../observability/metrics.ts';
import { startTracing, type Tracing } from '../observability/tracing.ts';
import { configuredSources, reportSettings, startClusterChores, startMetricsListener, startWorker, type RunningWorker, type WorkerSources } from './worker.ts';

export interface ServeOptions {
  demo: boolean;
  /** Run the crawl worker in this process (default: the JOBLEDGER_SERVE_WORKER setting). */
  worker?: boolean;
}

function printDemoKey(secret: string, port: number): void {
  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      `A local API key was created (plan ${DEMO_KEY_PLAN}). It is shown once; only its SHA-256 is stored:`,
      '',
      `  ${secret}`,
      '',
      'Try:',
      `  curl -H "Authorization: Bearer ${secret}" "${base}/v1/jobs?limit=200"`,
      `  curl "${base}/public/jobs?country=US"`,
      '',
    ].join('\n') + '\n',
  );
}

export async function serve(options: ServeOptions): Promise<void> {
  const rt = await openRuntime({ applicationName: 'jobledger-api', replica: true });
  const { config, log, database } = rt;
  let closeReplay: (() => Promise<void>) | undefined;
  let ingestDb: Kysely<DB> | undefined;
  let redis: Redis | undefined;
  let chores: RunningChores | undefined;
  let worker: RunningWorker | undefined;
  let metrics: MetricsServer | undefined;
  let mailer: Mailer | undefined;
  let keyChanges: KeyChangeListener | undefined;
  let tracing: Tracing | undefined;
  let sources: WorkerSources = configuredSources(config);

  try {
    // Before the app is built: the instrumentation hooks Fastify instances as they are created.
    tracing = await startTracing(config.tracing, log);
    if (options.demo) {
      const demo = await startDemoSources(config.fetch);
      closeReplay = () => demo.replay.close();
      sources = { fetch: demo.fetch, baseUrls: demo.replay.baseUrls, pageUrl: demo.replay.pageUrl };
      ingestDb = connect(database.connectionString, { statementTimeoutMs: config.ingestStatementTimeoutMs, maxConnections: 4, applicationName: 'jobledger-ingest', log }).db;
      const targets = await seedDemoTargets(ingestDb);
      log.info({ boards: targets.length }, 'importing the bundled real feeds through the replay server');
      await runImport(ingestDb, log, targets, sources, { absence: config.absence, probeLimit: config.worker.probeLimit, careerSite: config.careerSite, agencyKeys: config.agencyKeys });
    }

    const reports = reportSettings(config, sources);
    // Request counters: Redis when configured (shared by every API process), else PostgreSQL or memory.
    const opened = await openRequestCounters(config, database, log);
    const requestCounters = opened.counters;
    redis = opened.redis;
    log.info({ requestCounters: requestCounters.kind }, 'request counters');
    const stripe = stripeSettings(config.stripe);
    mailer = createMailer({ smtpUrl: config.site.smtpUrl, from: config.site.mailFrom, outboxDir: path.join(config.dataDir, 'outbox'), log });
    if (mailer.kind === 'outbox') log.info({ outbox: path.join(config.dataDir, 'outbox') }, 'no JOBLEDGER_SMTP_URL: e-mails are written to the outbox and sign-in links printed here');
    const siteUrl = (config.site.url ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
    // Direct submissions (docs/submissions.md): the desk writes the ledger; its reminders and lapses run hourly here.
    const submissions = new SubmissionDesk({ db: database.db, log: log.child({ component: 'submissions' }), mailer, siteUrl, linkTtlSeconds: config.site.linkTtlSeconds, logLinks: mailer.kind === 'outbox', employerDomains: config.site.employerDomains });
    // Keyed requests read their key through a cache this session invalidates (access/key-cache.ts).
    keyChanges = listenForKeyChanges(database.connectionString, log);
    await keyChanges.ready;
    const app = await buildApp({
      keyChanges,
      db: database.db,
      reader: database.reader,
      genericReader: database.genericReader,
      log,
      docsUrl: config.docsUrl,
      cursorSecret: await cursorSecret(database.db),
      requestCounters,
      trustProxyHops: config.trustProxyHops,
      keylessBurst: config.keylessBurst,
      // The OpenAPI document's `servers`: absolute when the operator states the public URL.
      publicUrl: config.site.url,
      recordBlocks: config.recordBlocks,
      // `/public/jobs` answers kept as bytes per query, invalidated by the change feed (issue 22).
      keylessPageCache: new KeylessPageCache(),
      // Repeated /public/jobs requests answered ahead of the router (keyless-front-cache.ts); a hit has
      // no Fastify request to trace, so not with tracing on.
      keylessFrontCache: tracing === undefined,
      reports,
      billing: new Billing({ db: database.db, log, provider: stripe ? new StripeCheckout(stripe) : undefined }),
      site: {
        siteUrl,
        secret: await siteSecret(database.db),
        sessionSeconds: config.site.sessionHours * 3600,
        linkTtlSeconds: config.site.linkTtlSeconds,
        mailer,
        operatorEmail: config.site.operatorEmail,
        altcha: { cost: config.site.altchaCost, maxCounter: config.site.altchaMaxCounter },
        submissions,
      },
    });
    log.info({ payments: stripe ? 'stripe' : 'off', plansOnSale: stripe ? Object.keys(stripe.prices) : [] }, 'checkout');
    await app.listen({ port: config.port, host: config.host });
    metrics = await startMetricsListener(config, log, database);
    // Report snapshots, retention, the submissions' reminders and the ECB fetch are scheduled chores,
    // run once per cluster by whichever process takes the job (src/chores/chores.ts); every process
    // serves the shared snapshots.
    chores = await startClusterChores(config, log, database, sources, { submissions });
    // The worker recrawls every target on its interval (the demo's from the replay server).
    if (options.worker ?? config.worker.inServe) worker = await startWorker(config, log, database, sources);
    const served = await countServed(database.db);
    log.info({ url: `http://localhost:${config.port}`, served }, 'jobledger is serving');

    if (options.demo) {
      const key = await ensureDemoKey(database.db);
      if (key) printDemoKey(key.secret, config.port);
      else log.info('the local demo key was created on the first run; make another with `npx jobledger keys create --plan scale`');
    }

    onShutdownSignal(log, async () => {
      await chores?.stop();
      await app.close();
      await keyChanges?.close();
      await metrics?.close();
      mailer?.close();
      redis?.disconnect();
      await worker?.stop();
      await closeReplay?.();
      await ingestDb?.destroy();
      await database.close();
      await tracing?.shutdown();
    });
  } catch (error) {
    redis?.disconnect();
    await keyChanges?.close();
    await metrics?.close().catch(() => undefined);
    await chores?.stop().catch(() => undefined);
    await worker?.stop().catch(() => undefined);
    await closeReplay?.().catch(() => undefined);
    await ingestDb?.destroy().catch(() => undefined);
    await database.close().catch(() => undefined);
    await tracing?.shutdown();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${config.port} is already in use; set PORT to another port`, { cause: error });
    }
    throw error;
  }
}
