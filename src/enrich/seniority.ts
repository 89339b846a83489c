/**
 * Seniority from the job title (spec: Resources › Job.seniority "Always inferred from the title";
 * vocabulary Entry, Mid, Senior, Lead, Manager, Director, Executive, Intern).
 *
 * Most titles say nothing about level ("Software Engineer", "Accountant"): they get no seniority
 * rather than a guess. Precedence, first match wins:
 *
 * 1. Intern: intern, internship, co-op, Praktikant(in), Praktikum, stagiaire, Werkstudent(in) /
 *    Werkstudierende (a working student is not a graduate hire: closest level is Intern), student
 *    trainee (US federal Pathways), summer associate.
 * 2. Executive: Chief … Officer and the C-suite acronyms (CEO, CTO, CFO, COO, CMO, CPO, CRO, CIO,
 *    CISO, CHRO…), President, (Senior/Executive) Vice President, VP/SVP/EVP, co-founder, Managing
 *    Director, Geschäftsführer(in), directeur général, daglig leder. "Chief of Staff" is not C-level
 *    and "Executive Assistant" / "Account Executive" are not executives. VP is Executive even though
 *    some banks use it for mid-career staff: the title alone cannot tell them apart.
 * 3. Director: director (incl. associate/assistant/senior director), Head of, directeur/directrice,
 *    Direktor(in), director(a), Bereichsleiter(in).
 * 4. Manager: people management only. "Manager" counts unless it names an individual-contributor
 *    role (product, project, program, account, customer success, community, partner, marketing,
 *    content, brand, office… managers manage a thing, not people); "Engineering Manager", "Store
 *    Manager", "General Manager", "Manager, X", "Senior Manager" count. Also supervisor, Supervisory
 *    (US federal), foreman/foreperson, Teamleiter excluded (→ Lead), other -leiter/-leitung (Abteilungs-
 *    leiter), responsable (fr), jefe/jefa de, gerente, chef de service/d'équipe, Nordic -chef/-sjef and
 *    avdelingsleder.
 * 5. Lead: lead (not "lead generation"), tech lead, team lead(er), Teamleiter/Teamleitung, teamleder,
 *    Principal (a principal engineer leads technical direction beyond Senior), Staff (only in
 *    technical titles: a Staff Engineer is above Senior, a "Staff Accountant" or "Staff Assistant" is
 *    not), WL-grade "Leader" titles.
 * 6. Senior: senior, sr, snr, experienced, erfaren, expert, level III/IV.
 * 7. Mid: mid-level, intermediate, medior, level II / 2.
 * 8. Entry: junior, jr, graduate, new grad, entry level, trainee, apprentice, Auszubildende(r),
 *    lærling, Berufseinsteiger, débutant, fresh grad, level I / 1, and "Associate" only as a prefix
 *    of another role ("Associate Product Manager", "Associate Software Engineer") — a bare
 *    "Associate", "Sales Associate" or "Associate Professor" says nothing.
 * 9. US federal grade in the title (GS-5…GS-15, e.g. "Statistician GS-1530-13"), lowest grade of a
 *    range, "FPL" (full performance level) ignored: GS-1…7 Entry, GS-9…12 Mid, GS-13…15 Senior. Used
 *    only when no word above matched.
 */
import type { Seniority } from '../domain/vocabulary.ts';

/** Lower-case, accents stripped, gender markers "(m/w/d)", "(h/f)" removed. */
function normalizeTitle(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\((?:[mwfdhxm]\s*\/\s*)+[mwfdhx]\)|\b[mwfdh]\/[mwfdh](?:\/[mwfdhx])?\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const INTERN = /\b(?:interns?|internship|co-?op|praktikant(?:in)?|praktikum|stagiaire|werkstudent(?:in)?|werkstudierende[:r]*|student trainee|summer associate|working student)\b/;

const EXECUTIVE =
  /\b(?:chief (?!of staff\b)(?:\w+ ){0,3}officer|ceo|cto|cfo|coo|cmo|cio|ciso|chro|(?:senior |executive )?vice[\s-]president|s?e?vp|co-?founder|president|managing director|geschaftsfuhrer(?:in)?|directeur general|directrice generale|daglig leder|administrerende direktor|verkstallande direktor)\b/;

const DIRECTOR = /\b(?:director|directors|head of|heads of|directeur|directrice|direktor(?:in)?|directora|bereichsleiter(?:in)?)\b/;

/** "X Manager" where X names a thing being managed rather than people being managed. */
const IC_MANAGER =
  /\b(?:product|products|project|projects|program|programme|programs|account|accounts|key account|customer success|client success|success|community|partner|partners|partnership|partnerships|relationship|marketing|product marketing|content|social media|campaign|campaigns|brand|category|channel|client|case|territory|portfolio|release|delivery|implementation|onboarding|office|event|events|growth|lifecycle|escalation|solutions?|technical account|investment|property|asset|fund|risk|compliance|inventory|payroll|vendor|contract|contracts|grants?|care|nurse|enablement|demand generation|performance marketing|seo|crm|retention|affiliate)\s+manager\b/;
const IC_MANAGER_ALL = new RegExp(IC_MANAGER.source, 'g');
const MANAGER_WORD = /\bmanager\b/;
const MANAGER_OTHER =
  /\b(?:supervisor|supervisory|foreman|forewoman|foreperson|superintendent|(?!team|begleit)\w*leiter(?:in)?|(?!team|begleit)\w*leitung|responsable|jefe|jefa|gerente|gerant|gerante|chef (?:de|d') ?(?:service|equipe|departement|rayon|secteur|atelier|cuisine|bureau)|avdelingsleder|\w+(?:chef|sjef))\b/;

const LEAD_GENERATION = /\blead(?:s)?[\s-]+(?:gen|generation|generator|qualification)\b/;
const LEAD =
  /\b(?:lead|leads|tech lead|team lead|team leader|leader|teamleiter(?:in)?|teamleitung|teamleder|teamledare|principal(?= \w))\b/;
const STAFF_TECH =
  /\bstaff (?:software|engineer|engineers|developer|data|machine|ml|ai|research|researcher|scientist|product|designer|design|security|backend|back-end|frontend|front-end|full[\s-]?stack|infrastructure|platform|site reliability|sre|devops|mobile|ios|android|analytics|applied|systems|solutions|technical|firmware|hardware|ux|architect|network|database|cloud)\b/;

/** A role noun followed by a level number: "Software Engineer 2", "Analyst 1". */
const ROLE = '(?:engineer|developer|analyst|scientist|specialist|technician|designer|associate|representative|accountant|consultant|administrator|architect|researcher)';
const SENIOR = new RegExp(`\\b(?:senior|sr|snr|experienced|erfaren|erfarne|expert|seasoned|level (?:iii|iv|3|4))\\b|\\b(?:iii|iv)\\s*$|\\b(?:iii|iv)\\b(?=\\s*[,(|/-])|\\b${ROLE} [34]\\b`);
const MID = new RegExp(`\\b(?:mid[\\s-]?level|mid[\\s-]?senior|intermediate|medior|level (?:ii|2))\\b|\\bii\\s*$|\\bii\\b(?=\\s*[,(|/-])|\\b${ROLE} 2\\b`);
const ENTRY = new RegExp(
  `\\b(?:junior|jr|jnr|graduate|graduates|new grad|entry[\\s-]?level|trainee|apprentice|apprenticeship|auszubildende[r]?|azubi|laerling|larling|berufseinsteiger(?:in)?|debutant(?:e)?|fresh grad|fresher|level (?:i|1))\\b|\\bi\\s*$|\\bi\\b(?=\\s*[,(|/-])|\\b${ROLE} 1\\b`,
);
const ASSOCIATE_PREFIX = /\bassociate (?!professor|director|vice|partner|principal|general counsel|dean|chief)\w{3,}/;

const GS_GRADE = /\bgs-?(?:\d{4}-)?(\d{1,2})(?:\s*\/\s*\d{1,2})?\b/g;

function federalGrade(title: string): Seniority | undefined {
  for (const m of title.matchAll(GS_GRADE)) {
    const before = title.slice(Math.max(0, m.index - 5), m.index);
    if (/fpl\s*$/.test(before)) continue;
    const grade = Number(m[1]);
    if (grade >= 1 && grade <= 7) return 'Entry';
    if (grade >= 8 && grade <= 12) return 'Mid';
    if (grade >= 13 && grade <= 15) return 'Senior';
  }
  return undefined;
}

function isPeopleManager(t: string): boolean {
  if (MANAGER_OTHER.test(t)) return true;
  if (!MANAGER_WORD.test(t)) return false;
  // A title is a people manager unless every "manager" in it is an IC one ("Manager, Product
  // Marketing" heads a function: its "manager" is not preceded by an IC word).
  const all = t.match(/\bmanager\b/g)?.length ?? 0;
  const ic = t.match(IC_MANAGER_ALL)?.length ?? 0;
  return ic < all;
}

/**
 * Classify a title's seniority.
 *
 * @param title the job title as the source gave it, any language.
 * @returns one of the eight levels, or undefined when the title states none (most titles). See the
 *          module docstring for the vocabulary and precedence.
 */
export function classifySeniority(title: string): Seniority | undefined {
  const t = normalizeTitle(title);
  if (!t) return undefined;
  if (INTERN.test(t)) return 'Intern';
  if (EXECUTIVE.test(t)) return 'Executive';
  if (DIRECTOR.test(t)) return 'Director';
  if (isPeopleManager(t)) return 'Manager';
  if ((LEAD.test(t.replace(LEAD_GENERATION, ' ')) || STAFF_TECH.test(t))) return 'Lead';
  if (SENIOR.test(t)) return 'Senior';
  if (MID.test(t)) return 'Mid';
  if (ENTRY.test(t) || ASSOCIATE_PREFIX.test(t)) return 'Entry';
  return federalGrade(t);
}
