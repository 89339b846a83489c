/**
 * Crawl leases of killed processes (issue 13, defect 3): after `kill -9` of a real `jobledger ingest`
 * mid-import, an immediate rerun takes over the leases the dead process held and imports every board;
 * a board whose lease a live process holds (or one whose holder cannot be proved dead) is skipped and
 * the command says so and exits 1.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DEMO_TARGETS } from './helpers/fixtures.ts';
import { processLeaseOwner } from '../src/ingest/crawl-lease.ts';
import { logLines, runCli, startCli } from './helpers/cli-process.ts';
import { useTestDatabase } from './helpers/database.ts';

describe('crawl leases of a killed ingest', () => {
  const t = useTestDatabase();

  async function leasesOf(pid: number) {
    return t.db
      .selectFrom('crawl_targets')
      .select(['id', 'lease_owner', 'lease_expires_at'])
      .where('lease_owner', 'like', `%:${pid}:%`)
      .where('lease_expires_at', '>', sql<Date>`now()`)
      .execute();
  }

  it('are taken over by an immediate rerun, which imports every board', async () => {
    const env = { DATABASE_URL: t.url };
    const first = startCli(['ingest', '--demo'], env);
    const pid = first.child.pid!;
    // Kill it while it holds leases, after some boards are in.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const done = await t.db.selectFrom('crawl_targets').select((eb) => eb.fn.countAll<number>().as('n')).where('last_success_at', 'is not', null).executeTakeFirstOrThrow();
      if (Number(done.n) > 0 && (await leasesOf(pid)).length > 0) break;
      if (first.child.exitCode !== null) throw new Error(`the ingest ended before it could be killed:\n${first.output()}`);
      if (Date.now() > deadline) throw new Error(`the ingest held no lease in time:\n${first.output()}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');

    // The dead process's leases are still there, minutes from lapsing: without a takeover they would block.
    const stale = await leasesOf(pid);
    expect(stale.length).toBeGreaterThan(0);

    const rerun = await runCli(['ingest', '--demo'], env);
    expect(rerun.code, rerun.output).toBe(0);
    expect(logLines(rerun.output, 'import finished')[0]).toMatchObject({ targets: DEMO_TARGETS, failed: 0, busy: 0 });
    const takeovers = logLines(rerun.output, 'took over the crawl lease of a process that died while crawling');
    expect(takeovers.map((l) => l.target).sort()).toEqual(stale.map((l) => l.id).sort());
    const targets = await t.db.selectFrom('crawl_targets').select(['id', 'last_success_at', 'lease_owner']).execute();
    expect(targets).toHaveLength(DEMO_TARGETS);
    for (const target of targets) {
      expect(target.last_success_at, target.id).not.toBeNull();
      expect(target.lease_owner, target.id).toBeNull();
    }
  }, 600_000);

  it('are left alone while their holder lives, or cannot be proved dead, and the ingest then exits 1 saying so', async () => {
    const [live, elsewhere] = ['ashby:ramp', 'greenhouse:anthropic'];
    const targets = await t.db.selectFrom('crawl_targets').select('id').where('id', 'in', [live, elsewhere]).execute();
    expect(targets).toHaveLength(2);
    // This test process is alive; a process on another host can never be judged from here.
    const liveOwner = processLeaseOwner();
    const remoteOwner = 'another-host:1:abcdef:4026531836.0123456789ab';
    for (const [id, owner] of [[live, liveOwner], [elsewhere, remoteOwner]] as const) {
      await t.db.updateTable('crawl_targets').set({ lease_owner: owner, lease_expires_at: sql<Date>`now() + interval '60 seconds'` }).where('id', '=', id).execute();
    }
    const run = await runCli(['ingest', '--demo', '--target', live, elsewhere], { DATABASE_URL: t.url });
    expect(run.code).toBe(1);
    expect(run.output).toMatch(/jobledger ingest: 2 boards skipped because another process is crawling them \(lease held by [^)]*until \d{4}-\d\d-\d\dT[^)]* unless renewed\)\. Run the import again/);
    expect(run.output).toContain(liveOwner);
    expect(run.output).toContain(remoteOwner);
    const after = await t.db.selectFrom('crawl_targets').select(['id', 'lease_owner']).where('id', 'in', [live, elsewhere]).orderBy('id').execute();
    expect(after).toEqual([
      { id: live, lease_owner: liveOwner },
      { id: elsewhere, lease_owner: remoteOwner },
    ]);
  }, 300_000);
});
