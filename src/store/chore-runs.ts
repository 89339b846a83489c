/**
 * Claims on scheduled chores (issue 20; table `chore_runs`, migration 027): at most one start of a chore
 * per claim window in the whole cluster, whichever process and whichever pg-boss job asks.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.ts';

/**
 * Claim a start of `chore` at `now`: true when no start was claimed within the last `windowSeconds`
 * (the caller runs the chore), false otherwise (another process or an earlier job ran it; skip).
 * One statement, so two processes claiming at once get one true between them: the upsert's row lock
 * makes the second re-check the condition against the first's committed start.
 */
export async function claimChoreRun(db: Kysely<DB>, chore: string, now: Date, windowSeconds: number): Promise<boolean> {
  const { rows } = await sql<{ chore: string }>`
    INSERT INTO chore_runs (chore, last_started_at) VALUES (${chore}, ${now})
    ON CONFLICT (chore) DO UPDATE SET last_started_at = EXCLUDED.last_started_at
      WHERE chore_runs.last_started_at <= EXCLUDED.last_started_at - make_interval(secs => ${windowSeconds})
    RETURNING chore`.execute(db);
  return rows.length === 1;
}
