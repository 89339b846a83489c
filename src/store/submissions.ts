/**
 * Direct submissions of vacancies (table `submissions`, migration 021). Decisions live in
 * `ingest/submissions.ts`; this repository reads and writes rows. Only the SHA-256 of the edit-or-close
 * link's token is stored.
 */
import type { Kysely } from 'kysely';
import type { DB, SubmissionRow } from './schema.ts';

/** The vacancy as the employer stated it: every column of table `submissions` the submitter may set. */
export type SubmissionContent = Pick<
  SubmissionRow,
  'company_name' | 'title' | 'location' | 'employment_type' | 'remote' | 'description' | 'apply_url' | 'salary_min' | 'salary_max' | 'salary_currency' | 'salary_period'
>;

/**
 * What a submission's manage page shows: built by `ingest/submissions.ts` (`SubmissionDesk.view`), rendered
 * by `site/submission-routes.ts`.
 */
export interface SubmissionView {
  id: string;
  status: SubmissionRow['status'];
  email: string;
  companyDomain: string;
  content: SubmissionContent;
  /** The served row's id, once published. */
  jobId: string | null;
  /** Last confirmation, and when the vacancy lapses without another one (open submissions only). */
  confirmedAt: Date | null;
  lapsesAt: Date | null;
}

/** Store a new submission waiting for its e-mailed verification. @returns its id. */
export async function insertSubmission(db: Kysely<DB>, row: SubmissionContent & { email: string; company_domain: string }, now: Date): Promise<string> {
  const inserted = await db
    .insertInto('submissions')
    .values({ ...row, status: 'pending', created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return inserted.id;
}

/** One submission by id, or undefined. */
export async function findSubmission(db: Kysely<DB>, id: string): Promise<SubmissionRow | undefined> {
  return db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The submission whose edit-or-close token hashes to `hash`, or undefined. */
export async function findSubmissionByManageHash(db: Kysely<DB>, hash: Buffer): Promise<SubmissionRow | undefined> {
  return db.selectFrom('submissions').selectAll().where('manage_token_hash', '=', hash).executeTakeFirst();
}

/**
 * Mark a pending submission published: verified and confirmed at `now`, its ledger row and its
 * edit-or-close token. Conditional on `pending`, so two uses of the link cannot both publish.
 * @returns false when it was not pending any more.
 */
export async function markSubmissionOpen(db: Kysely<DB>, id: string, input: { now: Date; jobId: string; manageHash: Buffer }): Promise<boolean> {
  const result = await db
    .updateTable('submissions')
    .set({ status: 'open', verified_at: input.now, confirmed_at: input.now, updated_at: input.now, job_id: input.jobId, manage_token_hash: input.manageHash })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Replace an open submission's content; an edit also counts as a re-confirmation at `now`. */
export async function updateSubmissionContent(db: Kysely<DB>, id: string, content: SubmissionContent, now: Date): Promise<void> {
  await db.updateTable('submissions').set({ ...content, updated_at: now, confirmed_at: now }).where('id', '=', id).where('status', '=', 'open').execute();
}

/** The submitter re-confirmed an open submission at `now`. */
export async function confirmSubmissionRow(db: Kysely<DB>, id: string, now: Date): Promise<void> {
  await db.updateTable('submissions').set({ confirmed_at: now, updated_at: now }).where('id', '=', id).where('status', '=', 'open').execute();
}

/**
 * Move a submission out of `from` into a final state at `now`.
 * @returns false when it was not in one of `from` any more.
 */
export async function endSubmission(db: Kysely<DB>, id: string, from: readonly SubmissionRow['status'][], to: 'closed' | 'lapsed' | 'rejected', now: Date, rejectedReason?: string): Promise<boolean> {
  const result = await db
    .updateTable('submissions')
    .set({ status: to, closed_at: now, updated_at: now, ...(rejectedReason !== undefined ? { rejected_reason: rejectedReason } : {}) })
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A new edit-or-close token for an open submission (the reminder's link), and when it was reminded. */
export async function rotateManageToken(db: Kysely<DB>, id: string, manageHash: Buffer, remindedAt: Date): Promise<void> {
  await db.updateTable('submissions').set({ manage_token_hash: manageHash, reminded_at: remindedAt }).where('id', '=', id).execute();
}

/** Open submissions last confirmed at or before `before` and not reminded since; oldest first. */
export async function submissionsToRemind(db: Kysely<DB>, before: Date, limit: number): Promise<SubmissionRow[]> {
  return db
    .selectFrom('submissions')
    .selectAll()
    .where('status', '=', 'open')
    .where('confirmed_at', '<=', before)
    .where((eb) => eb.or([eb('reminded_at', 'is', null), eb('reminded_at', '<', eb.ref('confirmed_at'))]))
    .orderBy('confirmed_at')
    .limit(limit)
    .execute();
}

/** Open submissions last confirmed at or before `before`: they lapse. */
export async function submissionsToLapse(db: Kysely<DB>, before: Date, limit: number): Promise<SubmissionRow[]> {
  return db.selectFrom('submissions').selectAll().where('status', '=', 'open').where('confirmed_at', '<=', before).orderBy('confirmed_at').limit(limit).execute();
}

/** Submissions for the operator, newest first, optionally of one status. */
export async function listSubmissions(db: Kysely<DB>, options: { status?: SubmissionRow['status']; limit: number }): Promise<SubmissionRow[]> {
  let query = db.selectFrom('submissions').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(options.limit);
  if (options.status) query = query.where('status', '=', options.status);
  return query.execute();
}

/** Pending submissions older than `before` (their link expired unused): deleted; returns how many. */
export async function deleteStalePendingSubmissions(db: Kysely<DB>, before: Date): Promise<number> {
  const result = await db.deleteFrom('submissions').where('status', '=', 'pending').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Delete a pending submission (its verification e-mail could not be sent). */
export async function deleteSubmission(db: Kysely<DB>, id: string): Promise<void> {
  await db.deleteFrom('submissions').where('id', '=', id).where('status', '=', 'pending').execute();
}

/** The ledger row of a submission (provider `providerId`, source posting id = the submission id), or undefined. */
export async function jobOfSubmission(db: Kysely<DB>, providerId: string, submissionId: string): Promise<string | undefined> {
  const row = await db.selectFrom('jobs').select('id').where('provider_id', '=', providerId).where('source_posting_id', '=', submissionId).executeTakeFirst();
  return row?.id;
}
