/**
 * Employment type: from each source's own vocabulary to the employment facet (spec: Controlled
 * vocabularies › employment_type: Full-time, Part-time, Contract, Temporary, Internship; "the facet is
 * authoritative").
 *
 * Source vocabularies:
 * - Ashby `employmentType`: FullTime, PartTime, Contract, Intern, Temporary (Ashby posting API docs).
 * - Lever `categories.commitment`: free text chosen per account ("Full-time", "Full Time", "Part-time",
 *   "Contract", "Internship", "Permanent", "Fixed Term"...).
 * - Greenhouse job board API: no employment type field.
 * - USAJOBS `appointment_type`: Permanent, Temporary, Term, Internships, Summer, Recent Graduates,
 *   Detail, Multiple, Temporary Promotion, Seasonal, ... (USAJOBS position schedule/offering codes).
 * - Common spellings in other feeds: full_time, part-time, freelance, contractor; German, French,
 *   Dutch, Spanish and Nordic equivalents.
 *
 * Only values that say how the job is employed map. Decisions where sources are vague:
 * - "Permanent" (Lever, USAJOBS, CDI, "fast") says the contract has no end date, not whether it is
 *   full- or part-time: it maps to nothing. "Permanent Full-time" maps through "Full-time".
 * - USAJOBS "Summer", "Recent Graduates", "Detail", "Multiple", "Temporary Promotion" describe a
 *   hiring path or an internal move, not an employment type: nothing. "Term" (a fixed-length federal
 *   appointment) and "Seasonal" are Temporary; "Internships" is Internship.
 * - Freelance and contractor are Contract; a fixed-term contract ("fixed term", "befristet", CDD,
 *   "vikariat") is Temporary.
 * - A value naming two different types ("Full-time / Part-time") maps to nothing.
 */
import type { EmploymentType } from '../domain/vocabulary.ts';

/** Keys are lower-case with every non-letter removed ("Full-time" → "fulltime"). */
const VOCABULARY: Readonly<Record<string, EmploymentType>> = {
  // English, Ashby, Lever and common API spellings
  fulltime: 'Full-time',
  fulltimeemployee: 'Full-time',
  ft: 'Full-time',
  parttime: 'Part-time',
  pt: 'Part-time',
  contract: 'Contract',
  contractor: 'Contract',
  contracttohire: 'Contract',
  contractual: 'Contract',
  freelance: 'Contract',
  freelancer: 'Contract',
  independentcontractor: 'Contract',
  consultant: 'Contract',
  temporary: 'Temporary',
  temp: 'Temporary',
  term: 'Temporary',
  fixedterm: 'Temporary',
  fixedtermcontract: 'Temporary',
  seasonal: 'Temporary',
  intern: 'Internship',
  internship: 'Internship',
  internships: 'Internship',
  // German
  vollzeit: 'Full-time',
  teilzeit: 'Part-time',
  befristet: 'Temporary',
  praktikum: 'Internship',
  freiberuflich: 'Contract',
  // French
  tempsplein: 'Full-time',
  tempspartiel: 'Part-time',
  cdd: 'Temporary',
  stage: 'Internship',
  // Dutch
  voltijd: 'Full-time',
  deeltijd: 'Part-time',
  stageplaats: 'Internship',
  // Spanish
  jornadacompleta: 'Full-time',
  tiempocompleto: 'Full-time',
  mediajornada: 'Part-time',
  tiempoparcial: 'Part-time',
  practicas: 'Internship',
  temporal: 'Temporary',
  // Norwegian, Swedish, Danish
  heltid: 'Full-time',
  deltid: 'Part-time',
  vikariat: 'Temporary',
  engasjement: 'Temporary',
  sesong: 'Temporary',
  visstidsanstallning: 'Temporary',
  praksis: 'Internship',
  praktik: 'Internship',
};

/** Whole values that contain a type word but name a hiring path or internal move (USAJOBS). */
const NOT_A_TYPE: ReadonlySet<string> = new Set(['temporarypromotion', 'termpromotion', 'internalpromotion']);

function normalizeKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

/**
 * Map a source's employment type to the employment facet.
 *
 * @param raw the value exactly as the source gave it ("FullTime", "Full Time", "Permanent",
 *            "part_time", "Internships").
 * @returns one of Full-time, Part-time, Contract, Temporary, Internship; undefined when the value is
 *          missing, says nothing about the employment type (see the module docstring), or names two
 *          different types.
 */
export function mapEmploymentType(raw: string | undefined): EmploymentType | undefined {
  if (!raw?.trim()) return undefined;
  const wholeKey = normalizeKey(raw);
  if (NOT_A_TYPE.has(wholeKey)) return undefined;
  const whole = VOCABULARY[wholeKey];
  if (whole) return whole;
  // "Permanent - Full Time", "Full-time Permanent", "Temporary (NTE 1 year)": map runs of up to three
  // words, so "Full Time" is found inside a longer value.
  const words = raw.split(/[\s,;/|()[\]+&_]+/).map(normalizeKey).filter(Boolean);
  const found = new Set<EmploymentType>();
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= 3 && i + n <= words.length; n++) {
      const mapped = VOCABULARY[words.slice(i, i + n).join('')];
      if (mapped) found.add(mapped);
    }
  }
  return found.size === 1 ? [...found][0] : undefined;
}
