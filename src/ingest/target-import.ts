/**
 * Crawl targets from a CSV file (`jobledger targets import FILE.csv`): one board per row, columns
 * `provider, board, company, domain` (a header row naming them, any order; `company` and `domain`
 * optional), parsed by csv-parse (RFC 4180: quoted fields, embedded commas and newlines, a UTF-8 BOM).
 *
 * Each row is checked as `targets add` checks its options: the provider must be a connector id; a
 * `career_site` board is an http(s) careers-page URL without credentials (its fragment dropped); any
 * other board is a non-empty token without spaces or control characters; a domain must be a domain name
 * (stored bare). Refused rows are reported with their line and reason and change nothing; a row naming a
 * target already present (in the store or earlier in the file) is counted, not added twice. Importing the
 * same file again adds nothing.
 */
import { parse } from 'csv-parse/sync';
import type { Kysely } from 'kysely';
import { bareDomain } from '../domain/domain-name.ts';
import { existingTargetIds, targetId, upsertTarget, type TargetInput } from '../store/crawl-targets.ts';
import type { DB } from '../store/schema.ts';
import { isConnectorId } from './connectors/registry.ts';

/** What importing a file did. */
export interface TargetImportReport {
  added: string[];
  /** Targets the store already had (or an earlier row of the file named). */
  present: string[];
  refused: { line: number; reason: string }[];
}

/** A row checked: the target to upsert, or why it is refused. */
export function checkTargetRow(row: Record<string, string | undefined>): { target: TargetInput } | { reason: string } {
  const provider = row['provider']?.trim() ?? '';
  const rawBoard = row['board']?.trim() ?? '';
  const company = row['company']?.trim() || undefined;
  const rawDomain = row['domain']?.trim() || undefined;
  if (!provider) return { reason: 'no provider' };
  if (!isConnectorId(provider)) return { reason: `unknown provider "${provider}"` };
  if (!rawBoard) return { reason: 'no board' };
  let board = rawBoard;
  let domain: string | undefined;
  if (rawDomain !== undefined) {
    domain = bareDomain(rawDomain);
    if (!domain) return { reason: `domain "${rawDomain}" is not a domain name` };
  }
  if (provider === 'career_site') {
    const url = URL.canParse(rawBoard) ? new URL(rawBoard) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return { reason: `board "${rawBoard}" is not an http(s) careers-page URL` };
    url.hash = '';
    board = url.href;
    domain ??= bareDomain(url.hostname);
  } else if (/[\s\p{Cc}]/u.test(rawBoard) || rawBoard.length > 500) {
    return { reason: `board "${rawBoard.slice(0, 60)}" is not a board token (no spaces or control characters, at most 500 characters)` };
  }
  const target: TargetInput = { providerId: provider, board };
  if (company) target.companyName = company;
  if (domain) target.companyDomain = domain;
  return { target };
}

/**
 * Import the targets of a CSV text.
 * @throws Error when the text is not CSV or its header lacks `provider` or `board` (nothing is imported).
 */
export async function importTargets(db: Kysely<DB>, csv: string | Buffer): Promise<TargetImportReport> {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(csv, { bom: true, columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()), skip_empty_lines: true, relax_column_count: true, info: true, trim: true });
  } catch (err) {
    throw new Error(`not a CSV file: ${(err as Error).message}`, { cause: err });
  }
  const report: TargetImportReport = { added: [], present: [], refused: [] };
  if (records.length > 0 && (!('provider' in records[0]!.record) || !('board' in records[0]!.record))) {
    throw new Error('the header row must name the columns provider and board (and optionally company, domain)');
  }
  const checked = records.map(({ record, info }) => ({ line: info.lines, ...checkTargetRow(record) }));
  const ids = checked.flatMap((c) => ('target' in c ? [targetId(c.target.providerId, c.target.board)] : []));
  const existing = new Set(await existingTargetIds(db, ids));
  for (const row of checked) {
    if ('reason' in row) {
      report.refused.push({ line: row.line, reason: row.reason });
      continue;
    }
    const id = targetId(row.target.providerId, row.target.board);
    if (existing.has(id)) {
      report.present.push(id);
      continue;
    }
    await upsertTarget(db, row.target);
    existing.add(id);
    report.added.push(id);
  }
  return report;
}
