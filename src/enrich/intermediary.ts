/**
 * Intermediary boards (issue 15 class 2): a board operated by a recruitment agency for its clients, or a
 * venture firm's portfolio job board, whose postings would otherwise be served as employer-direct with
 * the intermediary as the company (spec: What the service does, item 2 "Rows posted by a staffing
 * agency or a job board are left out by default, and a paid parameter can re-admit them").
 *
 * One posting rarely proves it (an agency's own sales role reads like any employer's), so this judges a
 * whole board from all the postings of one crawl. Rules, first match wins, each with a stable id kept
 * in the ledger (`jobs.poster_rule_id`) and the board's evidence on its crawl target
 * (`crawl_targets.poster_evidence`, migration 016):
 *
 * 1. `poster.board_client_wording` → `staffing`: at least {@link MIN_MATCHED} postings and
 *    {@link MIN_SHARE} of the board are written for a client ("our client, a … company, is hiring",
 *    "on behalf of our client", "für unseren Kunden", … : poster-type.ts hasAgencyWording), or their
 *    department or team says they are client roles ("Client Opportunities", "Client Roles").
 * 2. `poster.board_portfolio` → `jobboard`: as many postings say they are a portfolio company's
 *    vacancy ("one of our portfolio companies is hiring", "portfolio jobs", "this role is at one of our
 *    portfolio companies"). A firm that only describes its portfolio ("our portfolio companies have
 *    reached …") does not match: its own staff roles are employer-direct.
 * 3. `poster.board_many_employers` → `jobboard` (or `staffing` when any posting has agency wording):
 *    postings name at least {@link MIN_OTHER_EMPLOYERS} distinct companies other than the board's owner
 *    as their employer, on at least {@link MIN_EMPLOYER_SHARE} of the board. A name counts when it stands
 *    in the department, the team, or a title prefix or suffix ("Scale AI - Software Engineer", "Designer
 *    at Acme") **and** the posting's own text presents it as the employer ("About Acme", "At Acme,",
 *    "Join Acme", "Acme is a …"), and the text does not present it as part of the owner ("a Voodoo
 *    company", "part of Voodoo", "acquired by Voodoo"): a studio's own brands are not clients.
 *
 * The thresholds are choices, made on the labelled Ashby boards' development part
 * (eval/labels/poster-types.json; `node scripts/eval/intermediaries.ts` reports both parts).
 */
import type { NormalizedJob, SourcePosting } from '../domain/posting.ts';
import type { PosterType } from '../domain/vocabulary.ts';
import { foldName, hasAgencyWording, type PosterRuleId } from './poster-type.ts';

/** Fewest postings of a board that must carry the evidence of rules 1 and 2. */
export const MIN_MATCHED = 2;
/** Least share of a board's postings that must carry the evidence of rules 1 and 2. */
export const MIN_SHARE = 0.25;
/** Fewest distinct other employers named for rule 3. */
export const MIN_OTHER_EMPLOYERS = 3;
/** Least share of a board's postings that must name another employer for rule 3. */
export const MIN_EMPLOYER_SHARE = 0.5;

/** What the board judgement reads of one posting. */
export interface BoardPosting {
  title: string;
  /** The company the row names (for an intermediary's board: the intermediary). */
  companyName: string;
  department?: string;
  team?: string;
  /** Plain-text description. */
  descriptionText?: string;
}

/** Why a board is an intermediary's: the rule, the poster type and what was counted. */
export interface BoardPosterEvidence {
  ruleId: PosterRuleId;
  posterType: PosterType;
  /** Postings judged. */
  postings: number;
  /** Postings that carried the rule's evidence. */
  matched: number;
  /** Other employers the postings name (rule 3; up to 20, sorted), empty for rules 1 and 2. */
  hiringCompanies: string[];
  /** Up to three titles of matching postings, for the operator. */
  samples: string[];
}

const CLIENT_DEPARTMENT = /\b(?:client|clients|customer placements?|kunden|klant(?:en)?)\b[^,;]{0,30}\b(?:opportunit\w*|roles?|positions?|jobs?|vacanc\w*|openings?|stellen|vacatures?)\b|^(?:clients?|client roles|placements?)$/i;

const PORTFOLIO_WORDING: readonly RegExp[] = [
  /\b(?:one of )?our portfolio compan(?:y|ies)\b[^.\n]{0,80}\b(?:is|are)\s+(?:hiring|looking|seeking|searching|recruiting)\b/i,
  /\b(?:role|position|job|opening|vacancy) (?:is )?(?:at|with|for) (?:one of )?our portfolio compan(?:y|ies)\b/i,
  /\bhiring (?:for|on behalf of) (?:one of )?our portfolio compan(?:y|ies)\b/i,
  /\bportfolio (?:jobs?|careers?|talent network|job board)\b/i,
  /\b(?:jobs?|careers?|talent) (?:board|network) (?:of|for|across) (?:our|the) portfolio\b/i,
];

/** The word every {@link PORTFOLIO_WORDING} pattern contains. */
const PORTFOLIO_WORD = /portfolio/i;

const TITLE_PREFIX = /^(.{2,40}?)\s+[-–—|:]\s+\S/;
const TITLE_SUFFIX = /\S\s+(?:[-–—|@]|at)\s+([^-–—|@]{2,40})$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Words a department, team or title part often is that never name a company. */
const NOT_A_NAME = /^(?:remote|hybrid|on-?site|full[- ]time|part[- ]time|contract|intern\w*|new grad|emea|apac|apj|latam|americas|us|usa|uk|eu|europe|global|general|other|future|all|senior|junior|lead)\b/i;

/** Candidate employer names a posting carries outside its text. */
function candidateNames(posting: BoardPosting): string[] {
  const names = new Set<string>();
  const add = (raw: string | undefined): void => {
    const name = raw?.replace(/\s*\(.*\)\s*$/, '').trim();
    if (!name || name.length < 2 || name.length > 40 || !/^[\p{Lu}\p{N}]/u.test(name) || NOT_A_NAME.test(name)) return;
    names.add(name);
  };
  add(posting.department);
  add(posting.team);
  add(TITLE_PREFIX.exec(posting.title)?.[1]);
  add(TITLE_SUFFIX.exec(posting.title)?.[1]);
  return [...names];
}

/**
 * The two patterns {@link namedEmployer} tests a candidate name with on one board, compiled once per
 * name and board rather than once per posting: a board's postings share their departments and teams.
 */
interface NamePatterns {
  /** The text presents the name as the employer. */
  asEmployer: RegExp;
  /** The text says the name is part of the board's owner (undefined when the owner has no pattern). */
  partOfOwner: RegExp | undefined;
}

function namePatterns(name: string, ownerPattern: RegExp | undefined): NamePatterns {
  // "Scale.ai" is "Scale" in its own text: the name with a web suffix dropped is as good.
  const n = [name, name.replace(/\.(?:ai|io|com|dev|co|app|so|xyz)$/i, '')].map(escapeRegExp).join('|');
  return {
    asEmployer: new RegExp(
      `^\\s*(?:${n})\\b|\\b(?:about|at|join|joining)\\s+(?:${n})\\b|(?:^|[.!?\\n]\\s*)(?:${n})(?:'s)?\\s+(?:is|are|was|builds|helps|provides|makes|creates|develops|offers|has)\\b`,
      'i',
    ),
    partOfOwner: ownerPattern
      ? new RegExp(`(?:${n})[^.\\n]{0,60}\\b(?:a|an|part of|owned by|acquired by|subsidiary of|member of|backed by)\\s+(?:the\\s+)?${ownerPattern.source}|${ownerPattern.source}[^.\\n]{0,40}\\b(?:acquired|owns|brand|studio|family|group)\\b[^.\\n]{0,40}(?:${n})`, 'i')
      : undefined,
  };
}

/**
 * The other employer a posting names, when its text presents that name as the employer.
 * @param patterns the board's compiled {@link NamePatterns} by name, filled as names come up.
 */
function namedEmployer(posting: BoardPosting, owner: string, ownerPattern: RegExp | undefined, patterns: Map<string, NamePatterns>): string | undefined {
  const text = posting.descriptionText;
  if (!text) return undefined;
  for (const name of candidateNames(posting)) {
    const folded = foldName(name);
    if (!folded || folded.includes(owner) || owner.includes(folded)) continue;
    let compiled = patterns.get(name);
    if (compiled === undefined) {
      compiled = namePatterns(name, ownerPattern);
      patterns.set(name, compiled);
    }
    if (!compiled.asEmployer.test(text)) continue;
    if (compiled.partOfOwner?.test(text)) continue;
    return name;
  }
  return undefined;
}

/**
 * Judge one board from the postings of one crawl.
 *
 * @param postings every posting the crawl read (of one board; one owner).
 * @returns the evidence when the board is an intermediary's (rules in the module docstring), or
 *          undefined: nothing at board level says so (single postings may still be flagged by
 *          poster-type.ts).
 */
export function judgeBoard(postings: readonly BoardPosting[]): BoardPosterEvidence | undefined {
  const total = postings.length;
  if (total === 0) return undefined;
  const enough = (matched: number): boolean => matched >= MIN_MATCHED && matched >= MIN_SHARE * total;
  const samplesOf = (list: readonly BoardPosting[]): string[] => list.slice(0, 3).map((p) => p.title);

  const clientRows = postings.filter((p) => hasAgencyWording(p.descriptionText) || [p.department, p.team].some((d) => d !== undefined && CLIENT_DEPARTMENT.test(d.trim())));
  if (enough(clientRows.length)) {
    return { ruleId: 'poster.board_client_wording', posterType: 'staffing', postings: total, matched: clientRows.length, hiringCompanies: [], samples: samplesOf(clientRows) };
  }

  // Every portfolio pattern holds the word, so a text without it is passed over at the cost of one scan.
  const portfolioRows = postings.filter((p) => p.descriptionText !== undefined && PORTFOLIO_WORD.test(p.descriptionText) && PORTFOLIO_WORDING.some((re) => re.test(p.descriptionText!)));
  if (enough(portfolioRows.length)) {
    return { ruleId: 'poster.board_portfolio', posterType: 'jobboard', postings: total, matched: portfolioRows.length, hiringCompanies: [], samples: samplesOf(portfolioRows) };
  }

  const ownerName = postings[0]!.companyName;
  const owner = foldName(ownerName);
  const ownerPattern = owner.length >= 2 ? new RegExp(escapeRegExp(ownerName.replace(/\s*(?:,?\s*(?:inc|llc|ltd|gmbh|ag|sas?|bv|nv|plc)\.?)$/i, '').trim()), 'i') : undefined;
  const employers = new Map<string, string>();
  const employerRows: BoardPosting[] = [];
  const patterns = new Map<string, NamePatterns>();
  for (const posting of postings) {
    const name = namedEmployer(posting, owner, ownerPattern, patterns);
    if (name === undefined) continue;
    employerRows.push(posting);
    if (!employers.has(foldName(name))) employers.set(foldName(name), name);
  }
  if (employers.size >= MIN_OTHER_EMPLOYERS && employerRows.length >= MIN_EMPLOYER_SHARE * total) {
    return {
      ruleId: 'poster.board_many_employers',
      posterType: clientRows.length > 0 ? 'staffing' : 'jobboard',
      postings: total,
      matched: employerRows.length,
      hiringCompanies: [...employers.values()].sort().slice(0, 20),
      samples: samplesOf(employerRows),
    };
  }
  return undefined;
}

/**
 * Judge a board from its enriched postings and mark every row the per-posting rules left employer-direct
 * with the board's poster type and rule id. This is what the pipeline runs after enrichment, per crawl.
 *
 * @param rows the crawl's postings as read (`posting`: department and team hints) and enriched (`job`,
 *             mutated: `posterType` and `posterRuleId` set on rows that had none).
 * @returns the board's evidence, or undefined when the board is not an intermediary's.
 */
export function applyBoardPosterType(rows: ReadonlyArray<{ posting: SourcePosting; job: NormalizedJob }>): BoardPosterEvidence | undefined {
  const evidence = judgeBoard(
    rows.map(({ posting, job }) => ({
      title: job.title,
      companyName: job.companyName,
      department: posting.hints?.department,
      team: posting.hints?.team,
      descriptionText: job.descriptionText,
    })),
  );
  if (!evidence) return undefined;
  for (const { job } of rows) {
    if (job.posterType !== undefined) continue;
    job.posterType = evidence.posterType;
    job.posterRuleId = evidence.ruleId;
  }
  return evidence;
}
