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

/** The compiled "presented as the employer" pattern of each candidate name, within one board. */
type PatternCache = Map<string, RegExp>;

/**
 * Whether `text` presents `name` as the employer ("About X", "join X", "X is …"). The pattern is
 * compiled once per name and board: a board's postings share their departments and teams.
 */
function presentsAsEmployer(name: string, text: string, cache: PatternCache): boolean {
  let pattern = cache.get(name);
  if (pattern === undefined) {
    // "Scale.ai" is "Scale" in its own text: the name with a web suffix dropped is as good.
    const n = namePattern(name);
    pattern = new RegExp(
      `^\\s*(?:${n})\\b|\\b(?:about|at|join|joining)\\s+(?:${n})\\b|(?:^|[.!?\\n]\\s*)(?:${n})(?:'s)?\\s+(?:is|are|was|builds|helps|provides|makes|creates|develops|offers|has)\\b`,
      'i',
    );
    cache.set(name, pattern);
  }
  return pattern.test(text);
}

/** A candidate name as a pattern: itself, or itself without a web suffix. */
function namePattern(name: string): string {
  return [name, name.replace(/\.(?:ai|io|com|dev|co|app|so|xyz)$/i, '')].map(escapeRegExp).join('|');
}

/**
 * What the board judgement reads of one posting, worked out once per posting: it depends on the
 * posting alone, not on the rest of its board, so a re-crawl keeps it with the posting's enrichment
 * record (src/enrich/enrichment-record.ts) instead of scanning the advert again.
 */
export interface BoardSignals {
  /** The advert is written for a client (agency wording), or its department or team says so (rule 1). */
  client: boolean;
  /** The advert uses portfolio wording (rule 2). */
  portfolio: boolean;
  /**
   * The candidate employer names (department, team, title prefix and suffix, in that order) that the
   * advert's text presents as the employer (rule 3, before the board's owner is ruled out).
   */
  presented: string[];
}

/**
 * The {@link BoardSignals} of one posting.
 * @param cache compiled name patterns shared by the postings of one board (optional).
 */
export function boardSignals(posting: BoardPosting, cache: PatternCache = new Map()): BoardSignals {
  const text = posting.descriptionText;
  return {
    client: hasAgencyWording(text) || [posting.department, posting.team].some((d) => d !== undefined && CLIENT_DEPARTMENT.test(d.trim())),
    // Every portfolio pattern holds the word, so a text without it is passed over at the cost of one scan.
    portfolio: text !== undefined && PORTFOLIO_WORD.test(text) && PORTFOLIO_WORDING.some((re) => re.test(text)),
    presented: text ? candidateNames(posting).filter((name) => presentsAsEmployer(name, text, cache)) : [],
  };
}

/**
 * The other employer a posting names: the first name its text presents as the employer that is not
 * the board's owner, nor said by the text to be part of the owner.
 */
function namedEmployer(posting: BoardPosting, presented: readonly string[], owner: string, ownerPattern: RegExp | undefined): string | undefined {
  for (const name of presented) {
    const folded = foldName(name);
    if (!folded || folded.includes(owner) || owner.includes(folded)) continue;
    if (ownerPattern) {
      const n = namePattern(name);
      const partOfOwner = new RegExp(`(?:${n})[^.\\n]{0,60}\\b(?:a|an|part of|owned by|acquired by|subsidiary of|member of|backed by)\\s+(?:the\\s+)?${ownerPattern.source}|${ownerPattern.source}[^.\\n]{0,40}\\b(?:acquired|owns|brand|studio|family|group)\\b[^.\\n]{0,40}(?:${n})`, 'i');
      if (partOfOwner.test(posting.descriptionText ?? '')) continue;
    }
    return name;
  }
  return undefined;
}

/**
 * Judge one board from the postings of one crawl.
 *
 * @param postings every posting the crawl read (of one board; one owner), each with its
 *        {@link BoardSignals} when they are known already (otherwise they are worked out here).
 * @returns the evidence when the board is an intermediary's (rules in the module docstring), or
 *          undefined: nothing at board level says so (single postings may still be flagged by
 *          poster-type.ts).
 */
export function judgeBoard(postings: ReadonlyArray<BoardPosting & { signals?: BoardSignals }>): BoardPosterEvidence | undefined {
  const total = postings.length;
  if (total === 0) return undefined;
  const enough = (matched: number): boolean => matched >= MIN_MATCHED && matched >= MIN_SHARE * total;
  const samplesOf = (list: readonly BoardPosting[]): string[] => list.slice(0, 3).map((p) => p.title);
  const cache: PatternCache = new Map();
  const signals = postings.map((p) => p.signals ?? boardSignals(p, cache));

  const clientRows = postings.filter((_, i) => signals[i]!.client);
  if (enough(clientRows.length)) {
    return { ruleId: 'poster.board_client_wording', posterType: 'staffing', postings: total, matched: clientRows.length, hiringCompanies: [], samples: samplesOf(clientRows) };
  }

  const portfolioRows = postings.filter((_, i) => signals[i]!.portfolio);
  if (enough(portfolioRows.length)) {
    return { ruleId: 'poster.board_portfolio', posterType: 'jobboard', postings: total, matched: portfolioRows.length, hiringCompanies: [], samples: samplesOf(portfolioRows) };
  }

  const ownerName = postings[0]!.companyName;
  const owner = foldName(ownerName);
  const ownerPattern = owner.length >= 2 ? new RegExp(escapeRegExp(ownerName.replace(/\s*(?:,?\s*(?:inc|llc|ltd|gmbh|ag|sas?|bv|nv|plc)\.?)$/i, '').trim()), 'i') : undefined;
  const employers = new Map<string, string>();
  const employerRows: BoardPosting[] = [];
  for (const [i, posting] of postings.entries()) {
    const name = namedEmployer(posting, signals[i]!.presented, owner, ownerPattern);
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

/** What the board judgement reads of an enriched posting: the job's title, company and text, the source's department and team. */
export function boardPosting(posting: SourcePosting, job: NormalizedJob): BoardPosting {
  return {
    title: job.title,
    companyName: job.companyName,
    department: posting.hints?.department,
    team: posting.hints?.team,
    descriptionText: job.descriptionText,
  };
}

/**
 * Judge a board from its enriched postings and mark every row the per-posting rules left employer-direct
 * with the board's poster type and rule id. This is what the pipeline runs after enrichment, per crawl.
 *
 * @param rows the crawl's postings as read (`posting`: department and team hints) and enriched (`job`,
 *             mutated: `posterType` and `posterRuleId` set on rows that had none), each with its
 *             {@link BoardSignals} when they are known already.
 * @returns the board's evidence, or undefined when the board is not an intermediary's.
 */
export function applyBoardPosterType(rows: ReadonlyArray<{ posting: SourcePosting; job: NormalizedJob; signals?: BoardSignals }>): BoardPosterEvidence | undefined {
  const evidence = judgeBoard(rows.map(({ posting, job, signals }) => ({ ...boardPosting(posting, job), signals })));
  if (!evidence) return undefined;
  for (const { job } of rows) {
    if (job.posterType !== undefined) continue;
    job.posterType = evidence.posterType;
    job.posterRuleId = evidence.ruleId;
  }
  return evidence;
}
