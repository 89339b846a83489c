/**
 * Salary read out of the advert text (spec: Resources › Job, salary_source `parsed_description`;
 * FieldSources › salary "inferred when it is parsed_description. Never an estimate"; What the service
 * does, item 5: "Only salaries stated by the source, or read out of the advert text and labelled as
 * inferred, are published").
 *
 * Precision comes first: a wrong salary is worse than none, so the parser publishes only when the text
 * states exactly one pay figure or range, in a known currency and period, and abstains otherwise.
 * How it reads a description:
 * 1. Lines (the description text puts paragraphs and list items on their own lines); long lines are read in
 *    windows around each amount.
 * 2. Amounts: a currency symbol or ISO code before or after a number (`$120,000`, `€ 60.000`,
 *    `35 000,00€`, `EUR 90.000`, `£45k`, `R$265,000`, `CHF 120'000`, `550 000 kr`). Thousands
 *    separators of each locale (`,` `.` space, no-break space, `'`) are accepted only in groups of
 *    three digits, decimals only as one or two digits; `k` multiplies by 1,000. A malformed number
 *    (`$100,0000`) makes the whole statement unreadable.
 * 3. Ranges: two amounts joined by a dash or a word (to, and, bis, à, a, tot, til, till, hasta, -);
 *    the currency or `k` written once applies to both (`$130-$180K`, `£45-£60k`, `$18.00 - 20.00`).
 *    `up to X` gives only a maximum, `X+`, `from X`, `starting at X` only a minimum, a single amount
 *    both.
 * 4. An amount counts only with a pay word near it (salary, pay, compensation, wage, rate, OTE,
 *    earnings; Gehalt, Vergütung, brutto; salaire, rémunération; salario, sueldo, retribución;
 *    salaris, loon; lønn; lön) and none of the words that mark other money (funding, raised, ARR,
 *    revenue, valuation, stipend, budget, allowance, bonus, relocation, 401k, quota, deals ...), and
 *    never when followed by million/billion/M/B.
 * 5. Period: stated next to the amount (per year, annually, /yr, p.a., jährlich, par an, al año, per
 *    jaar, per år; per month, monatlich, par mois, al mes, per maand, per måned, i månaden; per hour,
 *    /hr, pro Stunde, de l'heure, por hora, per uur, i timen; per day; per week). With none stated,
 *    amounts of 10,000 or more called a salary, base, compensation or OTE are annual (no employer
 *    states a monthly or hourly pay of that size); anything else has no period and is not published.
 * 6. Currency: the code or an unambiguous symbol (€ EUR, £ GBP, R$ BRL, C$ CAD, A$ AUD, US$ USD, zł
 *    PLN, ₹ INR, CHF); a bare `$` or `kr` is read as the currency of the posting's own country (US,
 *    CA, AU, NZ, SG, HK for `$`; SE, NO, DK for `kr`) and otherwise not at all.
 * 7. Several different figures: figures marked as on-target or total cash (OTE, on-target, total
 *    compensation, including bonus) give way to a base figure; if more than one different figure is
 *    still left (a range per state or per country, per level) nothing is published.
 * 8. Plausibility: minimum <= maximum, maximum at most six times the minimum, and an amount inside a
 *    sane band for its period (hourly 1–2,000; daily 10–20,000; weekly 50–100,000; monthly
 *    100–1,000,000; annual 1,000–10,000,000).
 *
 * Measured on 462 labelled real descriptions by `npm run eval:enrich` (docs/enrichment-quality.md).
 */
import type { SourceSalary } from '../domain/posting.ts';
import type { SalaryPeriod } from '../domain/vocabulary.ts';

/** What the parser needs to know about the posting besides its text. */
export interface SalaryTextContext {
  /** The posting's ISO-3166 alpha-2 country, when resolved: decides what a bare `$` or `kr` means. */
  country?: string;
}

/** `$` in these countries is their own dollar. */
const DOLLAR_BY_COUNTRY: Readonly<Record<string, string>> = { US: 'USD', CA: 'CAD', AU: 'AUD', NZ: 'NZD', SG: 'SGD', HK: 'HKD' };
/** `kr` in these countries is their own krona/krone. */
const KRONA_BY_COUNTRY: Readonly<Record<string, string>> = { SE: 'SEK', NO: 'NOK', DK: 'DKK' };

const CODES = 'USD|EUR|GBP|CAD|AUD|NZD|CHF|SEK|NOK|DKK|PLN|CZK|HUF|RON|BRL|MXN|INR|JPY|SGD|HKD|ILS|ZAR|AED|TRY|PHP|MYR';
/** Currency marks before a number. Longer marks first so `US$` wins over `$`. */
const PREFIX = String.raw`(?<pre>US\$|USD\s?\$|C\$|CA\$|CAD\s?\$|A\$|AU\$|NZ\$|S\$|SG\$|HK\$|R\$|\$|€|£|₹|(?:${CODES})(?![a-z])|kr\.?|Fr\.)`;
/** Currency marks after a number. */
const SUFFIX = String.raw`(?<suf>€|£|\$|(?:${CODES})(?![a-z])|kr(?![a-z])|zł|Euro(?:s)?(?![a-z])|EUR(?![a-z]))`;
/** A number as written: digits with locale thousands separators and an optional decimal part. */
const NUMBER = String.raw`\d[\d.,'’\u00a0\u202f ]*\d|\d`;
const MULT = String.raw`(?<k>\s?[kK](?![a-zA-Z]))?`;

/** One money token: prefix + number (+k) (+suffix), or number (+k) + suffix. */
const MONEY = new RegExp(String.raw`(?:${PREFIX}\s?(?<n1>${NUMBER})${MULT}(?:\s?${SUFFIX})?|(?<n2>${NUMBER})${MULT.replace('<k>', '<k2>')}\s?${SUFFIX.replace('<suf>', '<suf2>')})`, 'g');

/** A bare number right after a range connector ("$100,000-130,000", "$18.00 - 20.00", "$130-$180K"). */
const RANGE_TAIL = new RegExp(
  String.raw`^(?:\s?\/\s?(?:hr|hour|h|yr|year|mo|month)\.?)?\s*(?:-|–|—|~|to|and|und|et|y|en|og|och|bis|à|a|tot|til|till|hasta|through)\s*(?:${PREFIX.replace('<pre>', '<pre3>')}\s?)?(?<n3>${NUMBER})${MULT.replace('<k>', '<k3>')}(?:\s?${SUFFIX.replace('<suf>', '<suf3>')})?`,
  'i',
);

const PAY_WORD =
  /\b(?:salary|salaries|base|pay|paid|compensation|wages?|rate|ote|on[-\s]target|earnings?|remuneration|stipend for interns|gehalt|jahresgehalt|bruttojahresgehalt|monatsgehalt|verg[uü]tung|brutto|festgehalt|stundenlohn|lohn|salaire|r[ée]mun[ée]ration|r[ée]tribution|salario|sueldo|retribuci[oó]n|salaris|loon|bruto|l[øo]nn|l[öo]n|m[åa]nadsl[öo]n|[åa]rsl[öo]n|timl[öo]n)\b/i;

/** Words that make a nearby amount something other than this job's pay. */
const OTHER_MONEY =
  /\b(?:raised|raise|funding|funded|series\s[a-f]|seed|arr|mrr|valuation|valued|revenue|market|industry|investors?|capital|stipend|budget|allowance|reimburs\w*|relocation|sign[-\s]?on|signing|referral|401\s?\(?k|hsa|fsa|quotas?|deals?|contracts?|aum|volume|loans?|spend|spent|savings|save|worth|customers?|clients?|gmv|tam|fund|grants?|prize|award|credits?|perks?|coworking|co-working|home office|office setup|setup fund|learning|wellness|wellbeing|gym|fitness|lunch|meals?|insurance|donate|price|priced|pricing|cost|costs|fees?|profit)\b/i;

const BIG_UNIT = /^\s?(?:m\b|mm\b|mn\b|b\b|bn\b|million|billion|trillion|t\b|mio|mrd|milliard)/i;

const VARIABLE = /\b(?:ote|on[-\s]target|total\s+(?:cash\s+)?comp(?:ensation)?|total\s+cash|including\s+(?:annual\s+)?bonus|incl\.?\s+bonus|with\s+commission)\b/i;
/** A bonus or similar one-off named right after the amount ("$4,000 annual bonus", "$1000 retention bonus"). */
const ONE_OFF_AFTER = /^\s?(?:usd|eur|gbp|cad)?\s?(?:annual\s+|yearly\s+|one[-\s]time\s+|retention\s+|signing\s+|sign[-\s]on\s+|performance\s+)?(?:bonus|stipend|allowance|budget|grant|credit|reimbursement|relocation)\b/i;

const PERIODS: readonly [SalaryPeriod, RegExp][] = [
  ['hourly', /(?:\dhr\b|\bper\s+hour\b|\bhourly\b|\/\s?h(?:ou)?r\b|\ban\s+hour\b|\ba\s+hour\b|\bhr\b|\bph\b|\bpro\s+stunde\b|\bstundenlohn\b|\/\s?std\b|\bde\s+l'heure\b|\bpar\s+heure\b|\bpor\s+hora\b|\bper\s+uur\b|\bi\s+timen\b|\bper\s+timme\b|\btiml[öo]n\b)/i],
  ['daily', /(?:\bper\s+day\b|\bdaily\b|\bday\s+rate\b|\/\s?day\b|\ba\s+day\b|\bpro\s+tag\b|\btagessatz\b|\bpar\s+jour\b|\bpor\s+d[ií]a\b|\bper\s+dag\b)/i],
  ['weekly', /(?:\bper\s+week\b|\bweekly\b|\/\s?w(?:ee)?k\b|\ba\s+week\b|\bpro\s+woche\b|\bpar\s+semaine\b|\bpor\s+semana\b|\bper\s+week\b)/i],
  ['monthly', /(?:\bper\s+month\b|\bmonthly\b|\/\s?mo(?:nth)?\b|\ba\s+month\b|\bmonatlich\w*|\bmonatsgehalt\b|\bpro\s+monat\b|\bmtl\.?|\bpar\s+mois\b|\bmensuel\w*|\bal\s+mes\b|\bmensual\w*|\bpor\s+mes\b|\bper\s+maand\b|\bper\s+m[åa]ned\b|\bi\s+m[åa]neden\b|\bper\s+m[åa]nad\b|\bi\s+m[åa]naden\b|\bm[åa]nadsl[öo]n\b|\bm[åa]nedsl[øo]nn\b)/i],
  ['annual', /(?:\bper\s+year\b|\bper\s+annum\b|\bannual(?:ly|ized|ised)?\b|\byearly\b|\ba\s+year\b|\/\s?y(?:ea)?r\b|\bp\.\s?a\.?|\bpa\b|\bjährlich\w*|\bjahresgehalt\b|\bbruttojahresgehalt\b|\bpro\s+jahr\b|\bim\s+jahr\b|\bp\.\s?j\.|\bpar\s+an\b|\bannuel\w*|\bbrut\s+annuel\b|\bal\s+a[ñn]o\b|\banual\w*|\bbruto\s+anual\b|\bper\s+jaar\b|\bjaarsalaris\b|\bper\s+[åa]r\b|\bi\s+[åa]ret\b|\bom\s+[åa]ret\b|\b[åa]rsl[öo]n\b|\b[åa]rsl[øo]nn\b)/i],
];

const ANNUAL_BY_DEFAULT = /\b(?:salary|salaries|base|compensation|ote|on[-\s]target|earnings|\w*gehalt\w*|verg[uü]tung|salaire|r[ée]mun[ée]ration|salario|sueldo|retribuci[oó]n|salaris|l[øo]nn|l[öo]n)\b/i;

const BANDS: Readonly<Record<SalaryPeriod, [number, number]>> = {
  hourly: [1, 2_000],
  daily: [10, 20_000],
  weekly: [50, 100_000],
  monthly: [100, 1_000_000],
  annual: [1_000, 10_000_000],
};

/** A candidate pay figure found in the text. */
interface Candidate {
  min?: number;
  max?: number;
  currency: string;
  period: SalaryPeriod;
  variable: boolean;
}

/** Thrown inside a statement when a number is malformed: the statement is not read at all. */
class Unreadable extends Error {}

/**
 * Parse a number written with any locale's separators, or throw Unreadable.
 * "120,000" "120.000" "120 000" "120'000" → 120000; "35 000,00" → 35000; "18.00" "18,5" → decimals.
 */
export function parseAmount(raw: string): number {
  const s = raw.replace(/[\u00a0\u202f’]/g, (c) => (c === '’' ? "'" : ' ')).trim();
  // The last separator followed by one or two digits is a decimal mark.
  const decimal = /^(.*\d)[.,](\d{1,2})$/.exec(s);
  const whole = decimal ? decimal[1]! : s;
  const fraction = decimal ? Number(`0.${decimal[2]}`) : 0;
  if (/^\d+$/.test(whole)) {
    // Unseparated digits: plausible only up to 7 digits ("1500000"); "1000000000" is no pay.
    if (whole.length > 7) throw new Unreadable();
    return Number(whole) + fraction;
  }
  const groups = /^(\d{1,3})((?:(?:,\s?|\.|\s|')\d{3})+)$/.exec(whole);
  if (!groups) throw new Unreadable();
  const seps = new Set([...groups[2]!.matchAll(/(,\s?|\.|\s|')\d{3}/g)].map((m) => m[1]!.trim() || ' '));
  if (seps.size !== 1) throw new Unreadable();
  // A thousands separator that is also the decimal mark ("1.234.56") is malformed.
  if (decimal && seps.has(s[decimal[1]!.length] === ',' ? ',' : '.')) throw new Unreadable();
  return Number(whole.replace(/[^\d]/g, '')) + fraction;
}

function currencyOf(mark: string | undefined, ctx: SalaryTextContext, statement: string): string | undefined {
  if (!mark) return undefined;
  const m = mark.replace(/\s/g, '').replace(/\.$/, '');
  const upper = m.toUpperCase();
  if (upper === 'US$' || upper === 'USD$') return 'USD';
  if (upper === 'C$' || upper === 'CA$' || upper === 'CAD$') return 'CAD';
  if (upper === 'A$' || upper === 'AU$') return 'AUD';
  if (upper === 'NZ$') return 'NZD';
  if (upper === 'S$' || upper === 'SG$') return 'SGD';
  if (upper === 'HK$') return 'HKD';
  if (upper === 'R$') return 'BRL';
  if (m === '€' || upper === 'EURO' || upper === 'EUROS') return 'EUR';
  if (m === '£') return 'GBP';
  if (m === '₹') return 'INR';
  if (m === 'zł') return 'PLN';
  if (upper === 'FR') return ctx.country === 'CH' ? 'CHF' : undefined;
  if (new RegExp(`^(?:${CODES})$`).test(upper)) return upper;
  if (m === '$') {
    // An explicit code anywhere in the statement settles a bare "$" ("$120,000 USD").
    const code = /(?<![A-Za-z])(USD|CAD|AUD|NZD|SGD|HKD)(?![A-Za-z])/.exec(statement)?.[1];
    if (code) return code;
    return ctx.country ? DOLLAR_BY_COUNTRY[ctx.country] : undefined;
  }
  if (upper === 'KR') {
    const code = /(?<![A-Za-z])(SEK|NOK|DKK)(?![A-Za-z])/.exec(statement)?.[1];
    if (code) return code;
    return ctx.country ? KRONA_BY_COUNTRY[ctx.country] : undefined;
  }
  return undefined;
}

function periodNear(text: string): SalaryPeriod | undefined {
  for (const [period, re] of PERIODS) if (re.test(text)) return period;
  return undefined;
}

/** A bare number, a range connector and nothing else before a suffix-only amount ("180,000 - 230,000 USD"). */
const RANGE_HEAD = new RegExp(String.raw`(?<hn>\d[\d.,'’\u00a0\u202f ]*\d|\d)(?<hk>\s?[kK])?\s*(?:-|–|—|to|bis|à|tot|til|till)\s*$`);

/** Cut a context window at the first list separator: what follows "+", "plus", "," is another item. */
function clause(text: string): string {
  return text.replace(/(?:\s\+|\+\s|\bplus\b|\bwith\b|,|;|\(|\bexclusive\b|\band includes\b|\bdepending\b).*$/is, '');
}

/**
 * Read every pay figure in one line. `heading` is the previous short line ("Compensation", "Salary
 * Range"), which counts as pay wording for the figures under it.
 * @throws Unreadable when a figure that reads as this job's pay cannot be read without guessing.
 */
function readLine(line: string, heading: string, ctx: SalaryTextContext): Candidate[] {
  const out: Candidate[] = [];
  MONEY.lastIndex = 0;
  let consumedUntil = 0;
  for (let m = MONEY.exec(line); m !== null; m = MONEY.exec(line)) {
    if (m.index < consumedUntil) continue;
    const g = m.groups ?? {};
    let start = m.index;
    let rawFirst = g['n1'] ?? g['n2'] ?? '';
    let firstK = Boolean(g['k'] ?? g['k2']);
    const mark = g['pre'] ?? g['suf'] ?? g['suf2'];
    let end = m.index + m[0].length;
    const after = line.slice(end);
    if (BIG_UNIT.test(after)) continue;
    let rawSecond: string | undefined;
    let secondK = false;
    let secondMark: string | undefined;
    const head = g['pre'] === undefined ? RANGE_HEAD.exec(line.slice(0, m.index)) : null;
    if (head?.groups) {
      // "180,000 - 230,000 USD": the suffix names the currency of both ends.
      rawSecond = rawFirst;
      secondK = firstK;
      rawFirst = head.groups['hn']!;
      firstK = Boolean(head.groups['hk']);
      start = head.index;
    } else {
      const tail = RANGE_TAIL.exec(after);
      if (tail?.groups) {
        if (BIG_UNIT.test(after.slice(tail[0].length))) continue;
        rawSecond = tail.groups['n3'];
        secondK = Boolean(tail.groups['k3']);
        secondMark = tail.groups['pre3'] ?? tail.groups['suf3'];
        end += tail[0].length;
      }
    }
    consumedUntil = end;
    const before = line.slice(Math.max(0, start - 110), start);
    const behind = line.slice(end, end + 70);
    const near = `${heading} ${before} ${line.slice(start, end)} ${behind}`;
    const explicit = periodNear(`${line.slice(Math.max(0, start - 60), start)} ${line.slice(start, end + 40)}`);
    // An hourly figure, or a yearly one of five digits, is pay even without the word: perks are
    // neither paid by the hour nor that large.
    const periodSpeaks = explicit === 'hourly' || (explicit === 'annual' && /\d{2}[,.\s']?\d{3}|\d{2,3}\s?[kK]\b/.test(line.slice(start, end)));
    if (!PAY_WORD.test(near) && !periodSpeaks) continue;
    // Other money words count only in the clause right next to the amount: a sentence can name the
    // salary and, after a "+" or a comma, the equity, bonus and stipends that come with it.
    const closeBefore = line.slice(Math.max(0, start - 45), start).replace(/^.*(?:\+|,|;|\bplus\b)/is, '');
    const closeAfter = clause(line.slice(end, end + 40));
    if (OTHER_MONEY.test(closeBefore.replace(/\b(?:base\s+)?(?:salary|pay|compensation)\b.*$/i, '')) || OTHER_MONEY.test(closeAfter) || ONE_OFF_AFTER.test(after)) continue;
    // From here on the figure reads as pay: anything unreadable about it spoils the whole advert.
    let first = parseAmount(rawFirst) * (firstK ? 1000 : 1);
    let second: number | undefined;
    if (rawSecond !== undefined) {
      second = parseAmount(rawSecond) * (secondK ? 1000 : 1);
      // "$130-$180K", "£45-£60k": a k written once applies to both ends.
      if (secondK && !firstK && first < 1000) first *= 1000;
    }
    const currency = currencyOf(mark, ctx, near) ?? currencyOf(secondMark, ctx, near);
    if (!currency) throw new Unreadable();
    const lowerLead = before.slice(-25).toLowerCase();
    let min: number | undefined = first;
    let max: number | undefined = second ?? first;
    if (second === undefined) {
      if (/\b(?:up\s+to|bis\s+zu|jusqu'?[àa]|hasta|tot\s+maximaal|opp\s+til|upp\s+till|max(?:imum)?\.?)\s*$/.test(lowerLead)) min = undefined;
      else if (/^\+/.test(after) || /\b(?:from|starting\s+at|starts\s+at|start\s+at|at\s+least|minimum(?:\s+of)?|ab|à\s+partir\s+de|desde|vanaf|fra|fr[åa]n)\s*$/.test(lowerLead)) max = undefined;
    }
    const biggest = Math.max(min ?? 0, max ?? 0);
    const period: SalaryPeriod | undefined = explicit ?? (biggest >= 10_000 && ANNUAL_BY_DEFAULT.test(near) ? 'annual' : undefined);
    if (!period) throw new Unreadable();
    out.push({ min, max, currency, period, variable: VARIABLE.test(line.slice(Math.max(0, start - 60), start)) || /^\s*(?:\)?\s*)?(?:ote|on[-\s]target)\b/i.test(behind) });
  }
  return out;
}

function plausible(c: Candidate): boolean {
  const [lo, hi] = BANDS[c.period];
  for (const v of [c.min, c.max]) if (v !== undefined && (v < lo || v > hi)) return false;
  if (c.min !== undefined && c.max !== undefined && (c.min > c.max || c.max > 6 * c.min)) return false;
  return true;
}

const QUICK = /[$€£₹]|\b(?:USD|EUR|GBP|CAD|AUD|CHF|SEK|NOK|DKK|PLN|BRL|kr|Euro)\b|zł/;

/**
 * Read the one salary an advert states.
 *
 * @param text the plain-text description (`sanitizeDescription(...).text`).
 * @param ctx  the posting's resolved country, used only to read a bare `$` or `kr`.
 * @returns `{ min?, max?, currency, period }` exactly as the text states it (amounts in the stated
 *          currency and period; `k` expanded), or undefined when the text states no pay, or states
 *          it in a way the rules in the module docstring cannot read without guessing.
 */
export function parseSalaryFromText(text: string | undefined, ctx: SalaryTextContext = {}): SourceSalary | undefined {
  if (!text || !QUICK.test(text)) return undefined;
  const found: Candidate[] = [];
  let heading = '';
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    if (QUICK.test(line) && /\d/.test(line)) {
      try {
        // An implausible figure is simply not this job's pay (a $25 perk called "pay").
        for (const c of readLine(line, heading, ctx)) if (plausible(c)) found.push(c);
      } catch (error) {
        // A pay figure that cannot be read makes every other figure doubtful (it may be the US range
        // beside a Canadian one): publish nothing.
        if (error instanceof Unreadable) return undefined;
        throw error;
      }
    }
    // A heading ("Salary ranges (United States):") covers every amount line under it.
    if (!(QUICK.test(line) && /\d/.test(line))) heading = trimmed.length <= 60 && PAY_WORD.test(trimmed) ? trimmed : '';
  }
  const base = found.some((c) => !c.variable) ? found.filter((c) => !c.variable) : found;
  const distinct = new Map(base.map((c) => [`${c.min}|${c.max}|${c.currency}|${c.period}`, c]));
  if (distinct.size !== 1) return undefined;
  const [only] = distinct.values();
  if (!only) return undefined;
  const out: SourceSalary = { currency: only.currency, period: only.period };
  if (only.min !== undefined) out.min = only.min;
  if (only.max !== undefined) out.max = only.max;
  return out;
}
