/**
 * Workplace mode (`remote`: remote, hybrid, on_site) and its provenance.
 *
 * Spec: Resources › Job.remote and remote_inferred ("true when the service derived `remote` rather
 * than read it. Present even when false"), FieldSources › remote ("Yes, in a minority of sources").
 *
 * Rules, in order:
 * 1. The source has its own flag → that value, `published`, remoteInferred false. Two exceptions,
 *    where the source's own words are more precise than its flag:
 *    - the title or primary location says hybrid (and nothing there says remote) → `hybrid`,
 *      inferred. Ashby's `isRemote` is a boolean: the connector turns `false` into `on_site`, and
 *      `true` is set on postings whose every location reads "San Francisco-Hybrid" (Abridge.json), so
 *      the flag cannot say hybrid and the text can;
 *    - the flag is `on_site` and the title or primary location says remote (and nothing there says
 *      hybrid or on-site) → `remote`, inferred. Ashby boards mark postings located "Remote (EMEA)" or
 *      "United States Remote" with `isRemote: false` (cargo-one.json, mural.json); publishing on_site
 *      there would contradict the row's own location.
 *    Secondary locations never overrule a flag: an on-site posting in New York that also lists
 *    "Remote" among ten alternatives keeps its flag.
 *    A `not_remote` flag (Ashby `isRemote: false`: "not fully remote", issue #15 class 3) is not
 *    on-site: it rules out `remote` and nothing more. Hybrid vs on-site is then read from the title
 *    and primary location, else from the advert text ({@link workplaceFromAdvert}), and is
 *    `inferred`; `on_site` only when one of them states on-site; nothing when none does.
 *    A `remote_or_hybrid` flag (Ashby `isRemote: true`) says only that the job is not on-site: Ashby
 *    sets it on hybrid postings too (dev boards keyrock, AlephAlpha, rain, voodoo: "This position is
 *    hybrid and requires 3 days per week in the office" under `isRemote: true`; eval/labels/remote.jsonl).
 *    The title or primary location saying hybrid → `hybrid`, inferred; saying remote → `remote`,
 *    published; else the advert text saying hybrid ({@link workplaceFromAdvert}) → `hybrid`, inferred;
 *    the advert saying on-site contradicts the flag → nothing (dandy: "On-site office support required
 *    everyday" under `isRemote: true`); the advert silent → `remote`, published.
 * 2. No flag → infer from the title and location texts, `inferred`, remoteInferred true.
 * 3. Nothing in either → no value, `absent`, remoteInferred false.
 *
 * Reading the texts is conservative. Cues: remote ("Remote", "Remote-first", "fully remote", "work
 * from home", "WFH", German "Homeoffice"/"remote", French "télétravail", Dutch "thuiswerk", Spanish
 * "remoto"/"teletrabajo", Swedish "distans", Norwegian "hjemmekontor"); hybrid ("Hybrid", "hybride",
 * "híbrido", "telework eligible" in US federal titles); on-site ("On-site", "Onsite", "In office",
 * "office-based", "vor Ort", "presencial", "not remote"). Not cues: "remote sensing", "remote
 * control", "remote pilot", "remote monitoring" and similar job content; "Remote" as part of a
 * longer name ("RemoteCo"). When remote and on-site cues both appear (a remote posting with an
 * on-site alternative) nothing is inferred; hybrid with on-site ("Foster City, CA (Hybrid) In office
 * M,W,F") is hybrid; remote with hybrid ("U.S. Hybrid/Remote") is remote, the most permissive option
 * the posting offers.
 */
import type { Provenance } from '../domain/field-sources.ts';
import type { Remote } from '../domain/vocabulary.ts';

/** What the resolver returns; `remote` is omitted rather than empty. */
export interface ResolvedRemote {
  remote?: Remote;
  /** True only when `remote` is set and was derived by the service. */
  remoteInferred: boolean;
  provenance: Provenance;
}

/** Phrases where "remote" describes the work itself, not where it is done. */
const NOT_WORKPLACE =
  /\bremote(?:ly)?[\s-]+(?:sens(?:ing|or|ors)|control(?:s|led|ler)?|pilot(?:s|ed)?|operat(?:or|ors|ion|ions|ed)|monitor(?:ing|s)?|patient|access|desktop|hands|support\s+technician|diagnostic\w*|surveillance|viewing|sites?|areas?|communit(?:y|ies)|locations?\s+(?:of|in))\b/g;

const ON_SITE = /\b(?:on[\s-]?site|onsite|in[\s-]office|office[\s-]based|in[\s-]person|vor\s+ort|sur\s+site|presencial|not\s+remote|no\s+remote|non[\s-]remote)\b/;
const HYBRID = /\b(?:hybrid|hybride|hibrido|hybridt|telework(?:\s+eligible)?)\b/;
const REMOTE =
  /\b(?:remote(?:[\s-]first|[\s-]friendly|[\s-]eligible|[\s-]only)?|fully\s+distributed|work\s+from\s+home|wfh|home[\s-]?office|homeoffice|mobiles\s+arbeiten|teletravail|thuiswerk(?:en)?|remoto|teletrabajo|distans(?:arbete)?|hjemmekontor|fjernarbeid|etatyo)\b/;

/** Lower-case, accents stripped, so "Télétravail" and "híbrido" match plain patterns. */
function fold(s: string): string {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The workplace cues present in a set of texts. */
function cues(texts: string[]): { remote: boolean; hybrid: boolean; onSite: boolean } {
  const found = { remote: false, hybrid: false, onSite: false };
  for (const raw of texts) {
    if (!raw) continue;
    const text = fold(raw).replace(NOT_WORKPLACE, ' ');
    // "not remote" must not also count as a remote cue.
    const withoutNegation = text.replace(/\b(?:not|no|non)[\s-]remote\b/g, ' ');
    if (ON_SITE.test(text)) found.onSite = true;
    if (HYBRID.test(text)) found.hybrid = true;
    if (REMOTE.test(withoutNegation)) found.remote = true;
  }
  return found;
}

/** The single workplace mode the texts support, or undefined when they say nothing or conflict. */
function inferFromTexts(texts: string[]): Remote | undefined {
  const c = cues(texts);
  if (c.remote && c.onSite && !c.hybrid) return undefined;
  if (c.remote) return 'remote';
  if (c.hybrid) return 'hybrid';
  if (c.onSite) return 'on_site';
  return undefined;
}

/**
 * Hybrid in an advert's own words: "hybrid", office days per week, "remote-friendly"/"partially remote",
 * "work from home N days". Written for sentences about where the job is done, not perks.
 */
const ADVERT_HYBRID =
  /\b(?:hybrid|hybride|hibrido|(?:[1-4]|one|two|three|four)(?:\s*(?:-|to|or)\s*(?:[1-4]|two|three|four))?\s+days?\s+(?:a|per|each|every|of\s+the)\s+week\s+(?:in|at|from)\s+(?:the|our|an?)\s+(?:office|studio|hq|headquarters)|(?:[1-4]|one|two|three|four)(?:\s*(?:-|to|or)\s*(?:[1-4]|two|three|four))?\s+days?\s+(?:a\s+week\s+|per\s+week\s+)?(?:in[\s-](?:the\s+)?office|on[\s-]?site|in[\s-]person)|(?:remote|home|wfh)\s+(?:up\s+to\s+)?(?:[1-4]|one|two|three)\s+days?|(?:in|at)\s+(?:the|our)\s+(?:office|studio|hq)\s+(?:[1-4]|one|two|three|four)(?:\s*(?:-|to|or)\s*(?:[1-4]|two|three|four))?\s+days?|flexible\s+hybrid|mix\s+of\s+(?:remote|home)\s+and\s+(?:office|in[\s-]person)|(?:monday|tuesday|wednesday|thursday|friday)s?(?:\s*(?:,|&|\+|and|,\s*and)\s*(?:every\s+other\s+)?(?:monday|tuesday|wednesday|thursday|friday)s?)+\s+(?:are\s+(?:our\s+)?)?(?:required\s+)?(?:in[\s-](?:the\s+)?office|on[\s-]?site|in[\s-]person)|(?:office|on[\s-]?site|in[\s-]person)\b[^.\n]{0,40}?\b(?:[1-4]|one|two|three|four)(?:\s*(?:-|to|or)\s*(?:[1-4]|two|three|four))?\s+days?\s+(?:a|per|each|every)\s+week)\b/;

/**
 * Weaker hybrid wording ("remote-friendly", "partially remote", "flexible remote"): hybrid only when
 * the advert does not also state the job remote outright ({@link ADVERT_REMOTE}).
 */
const ADVERT_HYBRID_WEAK = /\b(?:partially\s+remote|remote[\s-](?:friendly|allowed|optional)|flexible\s+remote)\b/;

/** The advert stating remote outright: "fully remote", "100% remote", "remote-first", "work from anywhere". */
const ADVERT_REMOTE = /\b(?:fully\s+remote|100%\s+remote|all[\s-]remote|remote[\s-]first|work\s+from\s+anywhere|(?:this|the)\s+(?:role|position|job)\s+is\s+(?:a\s+)?(?:fully\s+)?remote)\b/;

/**
 * On-site in an advert's own words: the role, position or work stated as on-site, in-office or in
 * person, full-time in the office, or "not a remote role". "On-site gym" and "in-person events" are
 * perks, not the workplace, and do not match.
 */
const ADVERT_ON_SITE =
  /\b(?:(?:fully|100%|full[\s-]time|entirely|exclusively)\s+(?:on[\s-]?site|in[\s-](?:the\s+)?office|office[\s-]based|in[\s-]person)|(?:role|position|job|opportunity|work)\s+(?:is|will\s+be)\s+(?:an?\s+|based\s+)?(?:fully\s+)?(?:on[\s-]?site|in[\s-]office|office[\s-]based|in[\s-]person)|(?:on[\s-]?site|in[\s-]office|office[\s-]based|in[\s-]person)\s+(?:role|position|job)|(?:five|5)\s+days\s+(?:a|per)\s+week\s+(?:in|at|on)\s+(?:the\s+|our\s+)?(?:office|site)|(?:work|working|be)\s+(?:on[\s-]?site|in\s+(?:the|our)\s+office)\s+(?:full[\s-]time|every\s+day|daily|five\s+days)|(?:on[\s-]?site|in[\s-]office|in[\s-]person)\s+(?:\w+\s+){0,3}(?:required\s+)?(?:every\s?day|daily)|(?:this|the)\s+(?:is\s+)?not\s+a\s+remote\s+(?:role|position|job)|(?:role|position|job)\s+is\s+not\s+remote|no\s+remote\s+(?:work|option))\b/;

/**
 * Modes named as alternatives ("the number of hybrid, office-based, and remote workers will vary from
 * team to team", "remote, hybrid, or on-site", "hybrid or remotely"): a list of the modes a company
 * has, not the mode of this job (dev board uipath, eval/labels/remote.jsonl). Removed before reading.
 */
const MODE_WORD = String.raw`(?:fully\s+)?(?:hybrid|remote(?:ly)?|on[\s-]?site|onsite|office[\s-]based|in[\s-]office|in[\s-]person)`;
const MODE_LIST = new RegExp(String.raw`\b${MODE_WORD}(?:\s*(?:,|\/|\bor\b|\band\b|,\s*or\b|,\s*and\b|\band\/or\b)\s*${MODE_WORD})+\b`, 'g');
/**
 * "Hybrid" about the duties or the technology, not the workplace: "this hybrid role combines ...", "a
 * hybrid of", "a hybrid role: part data engineer, part analyst", "hybrid cloud", "hybrid architecture".
 */
const NOT_WORKPLACE_HYBRID =
  /\bhybrid\s+(?:of\b|(?:role|position|job)\s+(?:that\s+|which\s+)?(?:combines|blends|mixes|spans)\b|(?:role|position)\s*[:–-]\s*part\b|(?:cloud|architecture|search|retrieval|infrastructure|vehicles?|engines?|apps?|systems?)\b)/g;

/**
 * Sentences about other jobs at the company, not this one: "some roles are designated as remote-first",
 * "some roles in our GTM team are currently being hired for in-person hybrid work in Toronto" (dev
 * board 1password: its standard footer, under every posting whatever the job's own mode). Removed
 * before reading, up to the end of the sentence.
 */
const OTHER_JOBS = /\b(?:some|certain|other|many|most)\s+(?:of\s+(?:our|the)\s+)?(?:roles|positions|jobs|openings|teams|employees|team\s+members)\b[^.!?\n]*/g;

/**
 * The workplace mode an advert's text states, for a posting whose flag says only "not remote" or
 * "not on-site".
 * Hybrid cues win over on-site ones ("a hybrid role, on-site three days a week"); nothing when the
 * text states neither.
 *
 * @param text the plain-text description.
 * @returns `hybrid`, `on_site` or undefined.
 */
export function workplaceFromAdvert(text: string | undefined): 'hybrid' | 'on_site' | undefined {
  if (!text) return undefined;
  const folded = fold(text).replace(NOT_WORKPLACE, ' ').replace(OTHER_JOBS, ' ').replace(MODE_LIST, ' ').replace(NOT_WORKPLACE_HYBRID, ' ');
  if (ADVERT_HYBRID.test(folded)) return 'hybrid';
  if (ADVERT_ON_SITE.test(folded)) return 'on_site';
  if (ADVERT_HYBRID_WEAK.test(folded) && !ADVERT_REMOTE.test(folded)) return 'hybrid';
  return undefined;
}

/**
 * Decide `remote`, `remote_inferred` and FieldSources.remote for one posting.
 *
 * @param input.flag  the source's own workplace flag as the connector mapped it, when it has one.
 * @param input.texts the posting's title and primary location text, as given.
 * @param input.secondaryTexts further location texts (Ashby `secondaryLocations`): evidence when the
 *        source has no flag, never enough to overrule one.
 * @param input.advertText the plain-text description: read only under a `not_remote` or
 *        `remote_or_hybrid` flag.
 * @returns see the module docstring for the rules; `remoteInferred` is true only when `remote` is set
 *          and was derived from the texts.
 */
export function resolveRemote(input: { flag?: Remote | 'not_remote' | 'remote_or_hybrid'; texts: string[]; secondaryTexts?: string[]; advertText?: string }): ResolvedRemote {
  if (input.flag === 'remote_or_hybrid') {
    const primary = inferFromTexts(input.texts);
    if (primary === 'hybrid') return { remote: 'hybrid', remoteInferred: true, provenance: 'inferred' };
    if (primary !== 'remote') {
      const advert = workplaceFromAdvert(input.advertText);
      if (advert === 'hybrid') return { remote: 'hybrid', remoteInferred: true, provenance: 'inferred' };
      if (advert === 'on_site') return { remoteInferred: false, provenance: 'absent' };
    }
    return { remote: 'remote', remoteInferred: false, provenance: 'published' };
  }
  if (input.flag === 'not_remote') {
    const c = cues(input.texts);
    const mode = c.hybrid ? 'hybrid' : c.onSite ? 'on_site' : workplaceFromAdvert(input.advertText);
    if (mode) return { remote: mode, remoteInferred: true, provenance: 'inferred' };
    return { remoteInferred: false, provenance: 'absent' };
  }
  if (input.flag) {
    // Only the title and primary location may overrule a flag: a posting flagged on-site in New
    // York with "Remote" among ten alternative locations is not thereby a remote job.
    const primary = inferFromTexts(input.texts);
    const c = cues(input.texts);
    if (primary === 'hybrid' && input.flag !== 'hybrid') {
      return { remote: 'hybrid', remoteInferred: true, provenance: 'inferred' };
    }
    if (primary === 'remote' && input.flag === 'on_site' && !c.hybrid && !c.onSite) {
      return { remote: 'remote', remoteInferred: true, provenance: 'inferred' };
    }
    return { remote: input.flag, remoteInferred: false, provenance: 'published' };
  }
  const inferred = inferFromTexts([...input.texts, ...(input.secondaryTexts ?? [])]);
  if (inferred) return { remote: inferred, remoteInferred: true, provenance: 'inferred' };
  return { remoteInferred: false, provenance: 'absent' };
}
