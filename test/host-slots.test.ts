/**
 * Per-host crawl slots (store/crawl-targets.ts withHostSlot) on a real PostgreSQL: at most `slots`
 * callers run at once, a slot this process frees passes to its next waiter in arrival order, a slot
 * another session holds is waited for, and failures reach the caller. test/worker.test.ts checks the
 * bound as a source sees it, across two worker processes.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withHostSlot } from '../src/store/crawl-targets.ts';
import { connect } from '../src/store/database.ts';
import { useTestDatabase } from './helpers/database.ts';
import { freePort } from './helpers/ports.ts';

/** The advisory-lock namespace of the slots (crawl-targets.ts HOST_SLOT_LOCK_SPACE). */
const LOCK_SPACE = 4_711_002;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per-host crawl slots', () => {
  const t = useTestDatabase();
  /** Slot locks held now, by any session of this test's database (other test files crawl beside it). */
  const heldLocks = async () => {
    const { rows } = await sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND classid = ${LOCK_SPACE} AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`.execute(t.db);
    return rows[0]!.n;
  };
  /** Held slot locks once the holders have had up to 2 s to give them back (they unlock after their last caller settles). */
  const settledLocks = async () => {
    for (let waited = 0; waited < 2_000 && (await heldLocks()) > 0; waited += 20) await sleep(20);
    return heldLocks();
  };

  it('run at most `slots` callers at once, each once, a freed slot going to the next caller in arrival order', async () => {
    let inFlight = 0;
    let peak = 0;
    let peakLocks = 0;
    const order: number[] = [];
    const work = (i: number) => async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      order.push(i);
      peakLocks = Math.max(peakLocks, await heldLocks());
      await sleep(20);
      inFlight--;
      return i;
    };
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => withHostSlot(t.db, 'boards.example', 2, work(i))));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(peakLocks).toBeLessThanOrEqual(2);
    // Every slot is given back once nobody waits.
    expect(await settledLocks()).toBe(0);
  });

  it('wait while another session holds the only slot, and run once it is freed', async () => {
    const other = await t.db.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(${LOCK_SPACE}, hashtext('busy.example#0'))`.execute(conn);
      let ran = false;
      const done = withHostSlot(t.db, 'busy.example', 1, async () => {
        ran = true;
        return 'ran';
      }, 50);
      await sleep(300);
      const ranWhileHeld = ran;
      await sql`SELECT pg_advisory_unlock(${LOCK_SPACE}, hashtext('busy.example#0'))`.execute(conn);
      return { ranWhileHeld, result: await done };
    });
    expect(other).toEqual({ ranWhileHeld: false, result: 'ran' });
  });

  it("hand a caller its work's error and free the slot for the next one", async () => {
    const failing = withHostSlot(t.db, 'errors.example', 1, async () => {
      throw new Error('the board answered 500');
    });
    const next = withHostSlot(t.db, 'errors.example', 1, async () => 'next ran');
    await expect(failing).rejects.toThrow('the board answered 500');
    await expect(next).resolves.toBe('next ran');
    expect(await settledLocks()).toBe(0);
  });

  describe('with the database unreachable', () => {
    let closed: ReturnType<typeof connect>;
    beforeAll(async () => {
      closed = connect(`postgres://postgres@127.0.0.1:${await freePort()}/nowhere`, { statementTimeoutMs: 1_000 });
    });
    afterAll(async () => {
      await closed.db.destroy();
    });

    it("hand every caller the database's error at once, never running the work", async () => {
      let ran = 0;
      const started = Date.now();
      // A poll interval of a minute: the callers must not wait for polls to learn the database is down.
      const callers = Array.from({ length: 12 }, () =>
        withHostSlot(closed.db, 'down.example', 2, async () => {
          ran++;
        }, 60_000),
      );
      for (const caller of callers) await expect(caller).rejects.toThrow(/ECONNREFUSED|connect/);
      expect(ran).toBe(0);
      expect(Date.now() - started).toBeLessThan(30_000);
    }, 120_000);
  });
});
