/**
 * Poster type: is a row posted by a staffing agency or a job board rather than by the employer itself
 * (spec: What the service does, item 2 "Rows posted by a staffing agency or a job board are left out
 * by default, and a paid parameter can re-admit them"; GET /v1/jobs `include_poster_type` staffing,
 * jobboard).
 *
 * Evidence, strongest first; the first that speaks decides:
 * 1. The provider is a job board or aggregator (`provider_type` aggregator): `jobboard`. Such rows are
 *    also removed by the quality gate; the poster type says why they are not employer-direct.
 * 2. The company is a known staffing agency or job board: {@link KNOWN_POSTERS}, matched on the folded
 *    company name or on the company's bare domain.
 * 3. The company name itself says it: "Staffing", "Recruitment", "Recruiting", "Personnel",
 *    "Personalservice", "Zeitarbeit", "Intérim", "Uitzendbureau", "Bemanning", "Executive Search",
 *    "Headhunters"… as a word of the name (`staffing`).
 * 4. The advert says it is written for someone else: "our client, a … company, is hiring", "on behalf
 *    of our client", "für unseren Kunden", "pour notre client", "para nuestro cliente", "voor onze
 *    opdrachtgever", "för vår kund", "for vår kunde", "nearshore staff augmentation",
 *    "Arbeitnehmerüberlassung"… (`staffing`). Only the first 1,500 characters are read: an agency
 *    says so up front, while an employer's "our clients" (plural) further down describes its customers
 *    and never matches.
 * Nothing found: undefined (the employer posted it).
 *
 * Measured against labelled boards by `npm run eval:enrich` (eval/labels/poster-types.json).
 */
import type { PosterType, ProviderType } from '../domain/vocabulary.ts';

/**
 * Known staffing agencies and job boards, by folded name or bare domain. Sources: the agencies'
 * and boards' own sites; the boards named in the quality gate's job-board host list; and, for
 * `truelogic` and `livinghr`, their own recorded Ashby adverts ("a leading provider of nearshore staff
 * augmentation services", "Our client, a fast-growing … startup, is hiring") show why the text markers exist.
 */
export const KNOWN_POSTERS: Readonly<Record<string, PosterType>> = {
  // Staffing and recruitment agencies.
  randstad: 'staffing', adecco: 'staffing', manpower: 'staffing', manpowergroup: 'staffing', experis: 'staffing',
  'robert half': 'staffing', hays: 'staffing', 'kelly services': 'staffing', allegis: 'staffing', teksystems: 'staffing',
  aerotek: 'staffing', 'aston carter': 'staffing', kforce: 'staffing', 'insight global': 'staffing', 'robert walters': 'staffing',
  'michael page': 'staffing', pagegroup: 'staffing', 'harvey nash': 'staffing', spherion: 'staffing',
  'express employment professionals': 'staffing', modis: 'staffing', akkodis: 'staffing', 'apex systems': 'staffing',
  'vaco': 'staffing', 'hudson': 'staffing', 'gi group': 'staffing', 'synergie': 'staffing', 'start people': 'staffing',
  'tempo-team': 'staffing', 'olympia': 'staffing', 'manpower group': 'staffing', 'page personnel': 'staffing',
  // Recruitment agencies on ATS boards, by their own recorded adverts (shared data ashby/): pplwise
  // ("Wir bei pplwise suchen für unseren Kunden Salonkee ..."), CultivateChain ("Our DeFi client is
  // looking for ...").
  pplwise: 'staffing', cultivatechain: 'staffing',
  // Job boards and aggregators.
  indeed: 'jobboard', linkedin: 'jobboard', glassdoor: 'jobboard', ziprecruiter: 'jobboard', monster: 'jobboard',
  remotive: 'jobboard', himalayas: 'jobboard', arbeitnow: 'jobboard', 'we work remotely': 'jobboard', remoteok: 'jobboard',
  'remote ok': 'jobboard', stepstone: 'jobboard', 'welcome to the jungle': 'jobboard', jooble: 'jobboard', adzuna: 'jobboard',
  dice: 'jobboard', wellfound: 'jobboard', simplyhired: 'jobboard', 'talent.com': 'jobboard', jobteaser: 'jobboard',
  'indeed.com': 'jobboard', 'linkedin.com': 'jobboard', 'remotive.com': 'jobboard', 'himalayas.app': 'jobboard',
  'arbeitnow.com': 'jobboard', 'randstad.com': 'staffing',
  'adecco.com': 'staffing', 'roberthalf.com': 'staffing', 'hays.com': 'staffing',
};

const NAME_MARKER =
  /\b(?:staffing|recruitment|recruiting|recruiters|personnel|personalservice|personaldienstleist\w*|zeitarbeit|arbeitnehmer[uü]berlassung|int[ée]rim|uitzendbureau|uitzend\w*|bemanning\w*|bemanningsbyr[åa]|rekrytering|rekruttering|headhunt\w*|executive search|talent solutions|talent network)\b/i;

const TEXT_MARKERS: readonly RegExp[] = [
  /\bour client,?\s+(?:a|an|one of|the)\b[^.\n]{0,120}\b(?:is|are)\s+(?:hiring|looking|seeking|searching|recruiting)\b/i,
  /\bour\s+\w+\s+client\s+is\s+(?:hiring|looking|seeking|searching)\b/i,
  /\b(?:on behalf of|for)\s+(?:our|a)\s+(?:valued\s+|leading\s+|prestigious\s+)?client\b(?!'|’)/i,
  /\b(?:staff|team) augmentation\b/i,
  /\b(?:f[üu]r|suchen f[üu]r|[üu]ber|ueber) unseren (?:kunden|mandanten|auftraggeber)\b/i,
  /\bfor our (?:client|customer),? (?:a|an|one of|the)\b/i,
  /\bunser(?:\s+\w+)? (?:kunde|mandant|auftraggeber)\b[^.\n]{0,80}\bsucht\b/i,
  /\barbeitnehmer[uü]berlassung\b/i,
  /\b(?:pour|chez) (?:notre|un de nos) client\b/i,
  /\bnotre client,?\s+(?:un|une|l')/i,
  /\bpara (?:nuestro|un) cliente\b/i,
  /\bnuestro cliente,?\s+(?:una?|l[ao]s?)\b/i,
  /\bvoor (?:onze|een) (?:klant|opdrachtgever)\b/i,
  /\bonze opdrachtgever\b/i,
  /\bf[öo]r (?:v[åa]r|en) (?:kund|klient|uppdragsgivare)\b/i,
  /\bfor (?:v[åa]r|en) (?:kunde|oppdragsgiver)\b/i,
  /\bv[åa]r (?:kunde|oppdragsgiver|kund|uppdragsgivare),?\s+(?:et|en|ett)\b/i,
];

/** Every text marker contains one of these words: a cheap test before the full list. */
const QUICK_MARKER = /client|customer|kunde|mandant|auftraggeber|augmentation|berlassung|cliente|klant|opdrachtgever|kund|oppdragsgiver|uppdragsgivare|klient/i;

/** Lower case, accents stripped, legal-form suffixes removed ("Randstad N.V." → "randstad"). */
export function foldName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[,.]?\s+(?:inc|llc|ltd|limited|gmbh|ag|sa|sas|bv|b\.v|nv|n\.v|plc|ab|as|asa|oy|spa|srl|co|corp|corporation|group|holding)\.?$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What the classifier reads. */
export interface PosterEvidence {
  /** Display name of the company the row names. */
  companyName: string;
  /** The company's bare domain, when known. */
  companyDomain?: string;
  /** The provider's class in the legacy vocabulary (aggregator feeds are job boards). */
  providerType: ProviderType;
  /** Plain-text description, when the row has one. */
  descriptionText?: string;
}

/**
 * Stable ids of the poster-type rules, kept in the ledger (`jobs.poster_rule_id`, migration 016) beside
 * `poster_type`, so an operator can see why a row is not served as employer-direct. The `poster.board_*`
 * rules are board-level (src/enrich/intermediary.ts).
 */
export const POSTER_RULE_IDS = [
  'poster.aggregator_provider',
  'poster.known_name',
  'poster.name_marker',
  'poster.advert_wording',
  'poster.board_client_wording',
  'poster.board_portfolio',
  'poster.board_many_employers',
  // The source itself says who posted it (SourcePosting.poster): Jobsuche lists the offer only with its
  // temporary-work/placement-agency filters on; a career page's JobPosting names another hiringOrganization.
  'poster.source_stated',
  // A row whose writer named no rule (rows stored before migration 016, hand-built test rows).
  'poster.unrecorded',
] as const;
export type PosterRuleId = (typeof POSTER_RULE_IDS)[number];

/** A poster type with the rule that decided it. */
export interface PosterFinding {
  posterType: PosterType;
  ruleId: PosterRuleId;
}

/**
 * True when the first 1,500 characters of an advert say it is written for someone else (the
 * {@link TEXT_MARKERS}: "our client, a … company, is hiring", "on behalf of our client", "für unseren
 * Kunden", …). Used per posting here and counted per board by src/enrich/intermediary.ts.
 */
export function hasAgencyWording(text: string | undefined): boolean {
  const head = text?.slice(0, 1500);
  return head !== undefined && QUICK_MARKER.test(head) && TEXT_MARKERS.some((re) => re.test(head));
}

/**
 * Classify who posted a row, with the rule that decided.
 *
 * @returns `staffing` or `jobboard` with its {@link PosterRuleId} when the evidence in the module
 *          docstring says so, otherwise undefined (employer-direct, as far as this one row shows).
 */
export function findPosterType(evidence: PosterEvidence): PosterFinding | undefined {
  if (evidence.providerType === 'aggregator') return { posterType: 'jobboard', ruleId: 'poster.aggregator_provider' };
  const name = foldName(evidence.companyName);
  const known = KNOWN_POSTERS[name] ?? (evidence.companyDomain ? KNOWN_POSTERS[evidence.companyDomain.toLowerCase()] : undefined);
  if (known) return { posterType: known, ruleId: 'poster.known_name' };
  if (NAME_MARKER.test(name)) return { posterType: 'staffing', ruleId: 'poster.name_marker' };
  if (hasAgencyWording(evidence.descriptionText)) return { posterType: 'staffing', ruleId: 'poster.advert_wording' };
  return undefined;
}

/**
 * Classify who posted a row ({@link findPosterType} without the rule id).
 *
 * @returns `staffing` or `jobboard` when the evidence in the module docstring says so, otherwise
 *          undefined (employer-direct).
 */
export function classifyPosterType(evidence: PosterEvidence): PosterType | undefined {
  return findPosterType(evidence)?.posterType;
}
