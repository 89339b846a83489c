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
 *    `X+`, `from X`, `starting at X` give only a minimum, a single amount both. `up to X` is a
 *    ceiling (commission, bonus), never the salary (issue #15). A range whose first end lost a
 *    thousands group (`$95,00 - $120,000`) is read as meant; any other range whose ends cannot both
 *    be right (reversed, or one end over six times the other) makes the advert unreadable.
 * 4. An amount counts only with a pay word near it (salary, pay, compensation, wage, rate, OTE,
 *    earnings; Gehalt, Vergütung, brutto; salaire, rémunération; salario, sueldo, retribución;
 *    salaris, loon; lønn; lön) and none of the words that mark other money (funding, raised, ARR,
 *    revenue, valuation, stipend, budget, allowance, bonus, relocation, 401k, quota, deals ...), and
 *    never when followed by million/billion/M/B. A sentence about benefits, stipends, allowances,
 *    relocation, sign-on or referral bonuses, quotas, equity, insurance or commuting is skipped whole unless it
 *    is also a pay sentence ("the pay range for this position is", "base salary:", "Gehalt"); a
 *    range in thousands with its currency (`€55k–€65k`) is pay wording of its own.
 * 5. Period: stated next to the amount (per year, annually, /yr, p.a., jährlich, par an, al año, per
 *    jaar, per år; per month, monatlich, par mois, al mes, per maand, per måned, i månaden; per hour,
 *    /hr, pro Stunde, de l'heure, por hora, per uur, i timen; per day; per week). With none stated,
 *    amounts of 10,000 or more called a salary, base, compensation or OTE are annual (no employer
 *    states a monthly or hourly pay of that size); anything else has no period and is not published.
 * 6. Currency: the code or an unambiguous symbol (€ EUR, £ GBP, R$ BRL, C$ CAD, A$ AUD, US$ USD, zł
 *    PLN, ₹ INR, CHF); a bare `$` or `kr` is read as the currency of the posting's own country (US,
 *    CA, AU, NZ, SG, HK for `$`; SE, NO, DK for `kr`); a `$` with no such country is read as the one
 *    dollar code the advert names elsewhere, else (when the advert names none and the posting has no
 *    country) as the one dollar currency of the board's other rows, and otherwise not at all.
 * 7. Several different figures: figures in a pay sentence outrank figures only near a pay word;
 *    figures marked as on-target or total cash (OTE, on-target, total
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
  /**
   * The one dollar currency (ISO 4217: USD, CAD, AUD, NZD, SGD, HKD) the board's other rows make
   * unambiguous (see `boardDollarCurrency` in enrich.ts), used for a bare `$` when neither the
   * statement, the posting's country nor the rest of the advert settles it.
   */
  boardDollar?: string;
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
  /\b(?:raised|raise|funding|funded|series\s[a-f]|seed|arr|mrr|valuation|valued|revenue|market|industry|investors?|capital|stipend|budget|allowance|reimburs\w*|relocation|sign[-\s]?on|signing|referral|401\s?\(?k|hsa|fsa|quotas?|deals?|contracts?|aum|volume|loans?|spend|spent|savings|save|worth|customers?|clients?|gmv|tam|fund|grants?|prize|award|credits?|perks?|coworking|co-working|home office|office setup|setup fund|learning|wellness|wellbeing|gym|fitness|lunch|meals?|insurance|donate|price|priced|pricing|cost|costs|fees?|profit|commuter|commute|commuting|transit|transportation|parking|equity|stock|rsus?|options?|shares|per\s+diem|tuition|childcare|phone|internet)\b/i;

/**
 * Money that is never this job's pay, looked for in the whole sentence around a figure: benefits,
 * stipends, allowances, relocation, sign-on and referral bonuses, quotas, equity (issue #15 class 1).
 * A sentence that also says {@link PAY_SENTENCE} is read figure by figure instead (the close-window
 * rules in readLine), so "Base salary $X, plus a $Y relocation stipend" still gives X.
 */
const BENEFIT_SENTENCE =
  /\b(?:stipends?|allowances?|reimburs\w*|relocation|sign[-\s]?on|signing\s+bonus|referral|quotas?|equity|stock\s+options?|rsus?|commuter|commute|transit|per\s+diem|401\s?\(?k|perks?|benefits?\s+(?:include|package)|bonus(?:es)?|tuition|wellness|learning\s+budget|home\s+office|coworking|fsa|hsa|hra|insurance|coverage|premiums?)\b/i;

/**
 * Words that make a sentence a statement of this job's pay ("the pay range for this position is",
 * "base salary:", "salary range", "Gehalt", "rémunération"). A figure in such a sentence outranks
 * figures found elsewhere only through weaker wording (a heading, "pay" in passing).
 */
const PAY_SENTENCE =
  /\b(?:(?:base|annual|starting|hourly|yearly|monthly)\s+(?:salary|pay|compensation|wage|rate)|(?:salary|pay|compensation|wage|hiring)\s+(?:range|band|bracket|scale)|salary\s*(?::|is|of|for|between)|compensation\s*(?::|is|for)|pay\s*(?::|is\s+between)|hourly\s+rate|(?:brutto)?jahresgehalt|gehalt|verg[uü]tung|salaire|r[ée]mun[ée]ration|salario|sueldo|salaris|l[øo]nn|l[öo]n)\b/i;

/** A word that begins a sentence boundary inside a line: ". " followed by a capital or a digit. */
function sentenceAround(line: string, start: number, end: number): string {
  const before = line.slice(0, start);
  const cut = Math.max(before.search(/(?:[.!?]\s+)(?=[A-Z(][^.!?]*$)/), -1);
  const from = cut >= 0 ? cut + 1 : 0;
  const rest = line.slice(end);
  const stop = rest.search(/[.!?]\s+(?=[A-Z(])/);
  return line.slice(from, stop >= 0 ? end + stop : line.length);
}

/** A list item as the description text writes it (`* `, `- `, `• `, `1. `). */
const LIST_ITEM = /^(?:[*•·▪◦‣–-]|\d{1,2}[.)])\s/;

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
  /** Stated in a pay sentence ({@link PAY_SENTENCE}) or under a pay heading. */
  strong: boolean;
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

/** Dollar currencies an advert names outright anywhere ("USD", "US$", "CAD", "C$"). */
function dollarCodesIn(text: string): Set<string> {
  const codes = new Set<string>();
  for (const m of text.matchAll(/(?<![A-Za-z])(USD|CAD|AUD|NZD|SGD|HKD|US\$|C\$|CA\$|A\$|AU\$|NZ\$|S\$|SG\$|HK\$)/g)) {
    const code = m[1]!.replace('$', '');
    codes.add({ US: 'USD', C: 'CAD', CA: 'CAD', A: 'AUD', AU: 'AUD', NZ: 'NZD', S: 'SGD', SG: 'SGD', HK: 'HKD' }[code] ?? code);
  }
  return codes;
}

function currencyOf(mark: string | undefined, ctx: SalaryTextContext, statement: string, text = statement): string | undefined {
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
    // Then the posting's own country; then the one dollar currency the advert names elsewhere
    // ("... $120,000 ..." and, lines below, "All figures in USD"); then the board's other rows.
    // Two dollar currencies in the advert, or none anywhere, leave the `$` unread.
    const own = ctx.country ? DOLLAR_BY_COUNTRY[ctx.country] : undefined;
    if (own) return own;
    const named = dollarCodesIn(text);
    if (named.size === 1) return [...named][0];
    if (named.size === 0 && !ctx.country) return ctx.boardDollar;
    return undefined;
  }
  if (upper === 'KR') {
    const code = /(?<![A-Za-z])(SEK|NOK|DKK)(?![A-Za-z])/.exec(statement)?.[1];
    if (code) return code;
    return ctx.country ? KRONA_BY_COUNTRY[ctx.country] : undefined;
  }
  return undefined;
}

/**
 * The one dollar currency a board's rows make unambiguous, for a bare `$` on a row of that board
 * that resolves no country (issue #15 class 1).
 *
 * @param rows each row's structured salary currency (ISO 4217) and resolved country (ISO-3166
 *        alpha-2), either may be missing.
 * @returns USD, CAD, AUD, NZD, SGD or HKD when exactly one of them occurs among the rows (as a
 *          structured currency or as a dollar country's own currency), else undefined.
 */
export function boardDollarCurrency(rows: Iterable<{ currency?: string; country?: string }>): string | undefined {
  const dollars = new Set(Object.values(DOLLAR_BY_COUNTRY));
  const seen = new Set<string>();
  for (const row of rows) {
    const code = row.currency?.toUpperCase();
    if (code && dollars.has(code)) seen.add(code);
    const own = row.country ? DOLLAR_BY_COUNTRY[row.country] : undefined;
    if (own) seen.add(own);
  }
  return seen.size === 1 ? [...seen][0] : undefined;
}

function periodNear(text: string): SalaryPeriod | undefined {
  for (const [period, re] of PERIODS) if (re.test(text)) return period;
  return undefined;
}

/** A bare number, a range connector and nothing else before a suffix-only amount ("180,000 - 230,000 USD"). */
const RANGE_HEAD = new RegExp(String.raw`(?<hn>\d[\d.,'’\u00a0\u202f ]*\d|\d)(?<hk>\s?[kK])?\s*(?:-|–|—|to|bis|à|tot|til|till)\s*$`);

/** A ceiling written before a single amount: "up to", "bis zu", "jusqu'à", "hasta", "max." */
const UP_TO = /\b(?:up\s+to|bis\s+zu|jusqu'?[àa]|hasta|tot\s+maximaal|opp\s+til|upp\s+till|max(?:imum)?\.?)\s*$/;

/**
 * The first end of a range as its author meant it, when it was written with a thousands group cut
 * short: "$95,00 - $120,000" is 95,000–120,000 (the other end shows the separator is a thousands mark,
 * and "95,00" read as 95 makes no range with 120,000). Any other reading is left as parsed; the
 * range check then refuses what is still inconsistent.
 */
function readAsMeant(rawFirst: string, first: number, rawSecond: string, second: number): number {
  const short = /^\d{1,3}([.,])\d{1,2}$/.exec(rawFirst.trim());
  if (!short || first >= 1000 || second < 1000) return first;
  const thousands = new RegExp(`\\d\\${short[1]}\\d{3}`).test(rawSecond);
  const meant = Math.trunc(first) * 1000 + Math.round((first % 1) * 1000);
  return thousands && meant <= second && second <= 6 * meant ? meant : first;
}

/** Cut a context window at the first list separator: what follows "+", "plus", "," is another item. */
function clause(text: string): string {
  return text.replace(/(?:\s\+|\+\s|\bplus\b|\bwith\b|,|;|\(|\bexclusive\b|\band includes\b|\bdepending\b).*$/is, '');
}

/**
 * Read every pay figure in one line. `heading` is the previous short line ("Compensation", "Salary
 * Range"), which counts as pay wording for the figures under it.
 * @throws Unreadable when a figure that reads as this job's pay cannot be read without guessing.
 */
function readLine(line: string, heading: string, ctx: SalaryTextContext, text: string): Candidate[] {
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
    const sentence = sentenceAround(line, start, end);
    const paySentence = PAY_SENTENCE.test(sentence) || (heading !== '' && PAY_SENTENCE.test(heading));
    // A benefit, stipend, bonus or equity sentence is not the salary, however "per month" or "pay"
    // it reads ("we pay $150 per month towards your commute"), unless it also states the pay.
    // Only the sentence up to the amount and the clause right after it count: "We pay $20.00 an hour,
    // plus commission and performance bonuses" names the bonus after a "plus", as another item.
    const sentenceStart = line.indexOf(sentence);
    const benefitScope = `${line.slice(sentenceStart >= 0 ? sentenceStart : start, start)} ${line.slice(start, end)} ${clause(line.slice(end, end + 80))}`;
    if (BENEFIT_SENTENCE.test(benefitScope) && !paySentence) continue;
    // An hourly figure, or a yearly one of five digits, is pay even without the word: perks are
    // neither paid by the hour nor that large.
    const periodSpeaks = explicit === 'hourly' || (explicit === 'annual' && /\d{2}[,.\s']?\d{3}|\d{2,3}\s?[kK]\b/.test(line.slice(start, end)));
    // "€55k–€65k": a range in thousands with its currency is how adverts state a salary band.
    const rangeSpeaks = rawSecond !== undefined && (firstK || secondK) && !OTHER_MONEY.test(sentence);
    if (!PAY_WORD.test(near) && !periodSpeaks && !rangeSpeaks) continue;
    // Other money words count only in the clause right next to the amount: a sentence can name the
    // salary and, after a "+" or a comma, the equity, bonus and stipends that come with it.
    const closeBefore = line.slice(Math.max(0, start - 45), start).replace(/^.*(?:\+|,|;|\bplus\b)/is, '');
    const closeAfter = clause(line.slice(end, end + 40));
    if (OTHER_MONEY.test(closeBefore.replace(/\b(?:base\s+)?(?:salary|pay|compensation)\b.*$/i, '')) || OTHER_MONEY.test(closeAfter) || ONE_OFF_AFTER.test(after)) continue;
    const lowerLead = before.slice(-25).toLowerCase();
    // "Earn up to $X", "bonus of up to X": a ceiling is not what the job pays (issue #15 class 1).
    if (rawSecond === undefined && UP_TO.test(lowerLead)) continue;
    // From here on the figure reads as pay: anything unreadable about it spoils the whole advert.
    let first = parseAmount(rawFirst) * (firstK ? 1000 : 1);
    let second: number | undefined;
    if (rawSecond !== undefined) {
      second = parseAmount(rawSecond) * (secondK ? 1000 : 1);
      // "$130-$180K", "£45-£60k": a k written once applies to both ends.
      if (secondK && !firstK && first < 1000) first *= 1000;
      first = readAsMeant(rawFirst, first, rawSecond, second);
      // A range whose ends cannot both be right ("$1,000 - $150,000", "$120,000 - $95,000") is a
      // typo nobody can undo: never publish a guess, and doubt every other figure of the advert.
      if (first > second || second > 6 * first) throw new Unreadable();
    }
    const currency = currencyOf(mark, ctx, near, text) ?? currencyOf(secondMark, ctx, near, text);
    if (!currency) throw new Unreadable();
    const min = first;
    let max: number | undefined = second ?? first;
    if (second === undefined && (/^\+/.test(after) || /\b(?:from|starting\s+at|starts\s+at|start\s+at|at\s+least|minimum(?:\s+of)?|ab|à\s+partir\s+de|desde|vanaf|fra|fr[åa]n)\s*$/.test(lowerLead))) max = undefined;
    const biggest = Math.max(min, max ?? 0);
    const period: SalaryPeriod | undefined = explicit ?? (biggest >= 10_000 && (ANNUAL_BY_DEFAULT.test(near) || rangeSpeaks) ? 'annual' : undefined);
    if (!period) throw new Unreadable();
    out.push({ min, max, currency, period, strong: paySentence, variable: VARIABLE.test(line.slice(Math.max(0, start - 60), start)) || /^\s*(?:\)?\s*)?(?:ote|on[-\s]target)\b/i.test(behind) });
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
        for (const c of readLine(line, heading, ctx, text)) if (plausible(c)) found.push(c);
      } catch (error) {
        // A pay figure that cannot be read makes every other figure doubtful (it may be the US range
        // beside a Canadian one): publish nothing.
        if (error instanceof Unreadable) return undefined;
        throw error;
      }
    }
    // A heading ("Salary ranges (United States):") covers every amount line under it.
    // A list item is not a heading: "* Paid family leave: 16 weeks" in a benefits list says "paid"
    // about leave, and the "$500/month for dependent health insurance" item under it is no salary.
    if (!(QUICK.test(line) && /\d/.test(line))) heading = trimmed.length <= 60 && !LIST_ITEM.test(trimmed) && PAY_WORD.test(trimmed) ? trimmed : '';
  }
  // A figure stated in a pay sentence outranks figures that only stand near a pay word (issue #15
  // class 1: the pay range is the salary even when a footer names other money "per month").
  const stated = found.some((c) => c.strong) ? found.filter((c) => c.strong) : found;
  const base = stated.some((c) => !c.variable) ? stated.filter((c) => !c.variable) : stated;
  const distinct = new Map(base.map((c) => [`${c.min}|${c.max}|${c.currency}|${c.period}`, c]));
  if (distinct.size !== 1) return undefined;
  const [only] = distinct.values();
  if (!only) return undefined;
  const out: SourceSalary = { currency: only.currency, period: only.period };
  if (only.min !== undefined) out.min = only.min;
  if (only.max !== undefined) out.max = only.max;
  return out;
}
