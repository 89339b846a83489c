/**
 * The quality gate: decides, per posting, whether the service stands behind its apply link
 * (spec: What the service does, items 2, 6 and 10). Each rule has a stable id, served with
 * `quality=all` and kept in the ledger.
 *
 * Rules, first match wins:
 * - `source.not_redistributable` → quality_removed: the provider is discovery-only or not redistributable
 *   (the job-board feeds Remotive, Himalayas and Arbeitnow: their rows are never served).
 * - `employer.opted_out` → optout_hidden: the employer has a verified opt-out (store/optouts.ts).
 * - `source.superseded` → quality_removed: a provider that supersedes this one (connector descriptor
 *   `supersedes`) has a row for the same source posting id: this is a copy of a vacancy served from
 *   there (the `usajobs` mirror's copy of an announcement the USAJOBS Search API has).
 * - `apply_url.missing` → quality_gated: no apply link (reversible doubt).
 * - `apply_url.job_board` → quality_removed: the link goes to a known job board or aggregator.
 * - `apply_url.other_board` → quality_removed: the link is on the provider's ATS host but another board.
 * - `apply_url.not_employer` → quality_removed: the employer's domain is known and the link is on none of
 *   its ATS board, its own domain, or (for a public agency) the agency's host. A company's own careers
 *   page (`career_site`) may send applicants to any known ATS host: that is where its board lives.
 * - `posted_at.future` → quality_gated: posted more than {@link FUTURE_TOLERANCE_MS} in the future.
 * A link on an unknown host of an employer whose domain is unknown passes: nothing proves it is not the
 * employer's own site.
 */
import type { NormalizedJob } from '../domain/posting.ts';
import { OPTOUT_RULE_ID, SUPERSEDED_RULE_ID, type QualityVerdict } from '../domain/quality.ts';
import { applyHosts } from './connectors/registry.ts';

/** Clock skew tolerated before a `posted_at` counts as future: 10 minutes. */
export const FUTURE_TOLERANCE_MS = 10 * 60 * 1000;

/** What the gate needs to know about the provider and board a posting came from. */
export interface GateContext {
  providerId: string;
  redistributable: boolean;
  discoveryOnly: boolean;
  /** Board token / site of the crawl target (the employer's board on the ATS). */
  board: string;
  /** The employer's bare domain, when known. */
  companyDomain?: string;
  /** The posting's employer has an active, verified opt-out. */
  optedOut?: boolean;
  /** A provider superseding this one has a row for the same source posting id (see `source.superseded`). */
  supersededCopy?: boolean;
  now: Date;
  /**
   * The apply hosts to judge by, when they are not the provider's own connector's: a direct submission
   * (provider `submissions`, no connector) is judged as a company's own careers page (`career_site`).
   */
  hosts?: ReturnType<typeof applyHosts>;
}

/** Job boards and aggregators whose links are never an employer's own application page. */
const JOB_BOARD_HOSTS: readonly string[] = [
  'indeed.com',
  'linkedin.com',
  'glassdoor.com',
  'ziprecruiter.com',
  'monster.com',
  'remotive.com',
  'himalayas.app',
  'arbeitnow.com',
  'weworkremotely.com',
  'remoteok.com',
  'remoteok.io',
  'stepstone.de',
  'welcometothejungle.com',
  'simplyhired.com',
  'talent.com',
  'jooble.org',
  'adzuna.com',
];

function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

function firstSegment(url: URL): string {
  const segment = url.pathname.split('/').filter(Boolean)[0] ?? '';
  try {
    return decodeURIComponent(segment).toLowerCase();
  } catch {
    return segment.toLowerCase();
  }
}

/** Judge one enriched posting. Pure. */
export function judgePosting(job: NormalizedJob, ctx: GateContext): QualityVerdict {
  if (ctx.discoveryOnly || !ctx.redistributable) {
    return { verdict: 'quality_removed', ruleId: 'source.not_redistributable' };
  }
  if (ctx.optedOut) return { verdict: 'optout_hidden', ruleId: OPTOUT_RULE_ID };
  if (ctx.supersededCopy) return { verdict: 'quality_removed', ruleId: SUPERSEDED_RULE_ID };
  if (!job.applyUrl) return { verdict: 'quality_gated', ruleId: 'apply_url.missing' };

  const url = new URL(job.applyUrl);
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const board = ctx.board.toLowerCase();

  const jobBoard = JOB_BOARD_HOSTS.find((d) => hostMatches(host, d));
  if (jobBoard) return { verdict: 'quality_removed', ruleId: 'apply_url.job_board', matchedHost: host };

  // Each connector's descriptor declares its hosts: ATS hosts name the board in the first path
  // segment (jobs.ashbyhq.com/{board}/..., jobs.lever.co/{site}/...); agency hosts are a public
  // agency's own site (usajobs.gov).
  const hosts = ctx.hosts ?? applyHosts(ctx.providerId);
  const onPathAts = hosts.ats.some((d) => hostMatches(host, d));
  if (onPathAts && firstSegment(url) !== board) {
    return { verdict: 'quality_removed', ruleId: 'apply_url.other_board', matchedHost: host };
  }
  // Subdomain ATS hosts name the board in the host ({company}.recruitee.com); a Workday board starts
  // with its tenant's host (gdit.wd5.myworkdayjobs.com/gdit/External_Career_Site).
  const onHostAts = hosts.atsSubdomain.some((d) => hostMatches(host, d));
  if (onHostAts) {
    const boardHost = board.split('/')[0]!;
    const own = boardHost.includes('.') ? host === boardHost : hosts.atsSubdomain.some((d) => host === `${boardHost}.${d}`);
    if (!own) return { verdict: 'quality_removed', ruleId: 'apply_url.other_board', matchedHost: host };
  }
  // Hosts whose short links name no board (apply.workable.com/j/{shortcode}) are the ATS's own pages.
  const onAts = onPathAts || onHostAts || hosts.atsAnyPath.some((d) => hostMatches(host, d));
  const onAnyAts = hosts.anyAts.some((d) => hostMatches(host, d));
  const onAgency = hosts.agency.some((d) => hostMatches(host, d));
  const onOwnDomain = ctx.companyDomain !== undefined && hostMatches(host, ctx.companyDomain.toLowerCase());
  if (ctx.companyDomain !== undefined && !onAts && !onAnyAts && !onAgency && !onOwnDomain) {
    return { verdict: 'quality_removed', ruleId: 'apply_url.not_employer', matchedHost: host };
  }

  if (job.postedAt && Date.parse(job.postedAt) > ctx.now.getTime() + FUTURE_TOLERANCE_MS) {
    return { verdict: 'quality_gated', ruleId: 'posted_at.future' };
  }
  return { verdict: 'live' };
}
