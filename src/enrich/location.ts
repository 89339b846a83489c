/**
 * Location resolution: from a posting's free-text location and its structured locations to an
 * ISO-3166 alpha-2 `country`, a `city` and (for the US) a two-letter `state`.
 *
 * Contract (spec: Resources › Job): `country` is ISO-3166 alpha-2 and "left out when ambiguous";
 * `city` is optional; the original text stays in `location` untouched (that is enrich.ts's job).
 * Ambiguous here means any of:
 * - evidence for two different countries ("Remote (United States | Canada)", a primary location in
 *   Berlin with secondary locations in France and Poland);
 * - a multi-country region anywhere in the evidence ("Europe", "EMEA", "LatAm", "Global", a time zone);
 * - no evidence at all ("Remote", "Anywhere", "Headquarters").
 * A city is published only when exactly one city is named across all evidence and it lies in the
 * published country; a state only when the country is US and exactly one state is named.
 *
 * How a string is read: it is cut into segments at list separators (`,` `;` `|` `/` `(` `)` `-` " or "
 * " & " ...); each segment is matched against place names (countries from `i18n-iso-countries` in
 * en, de, fr, nl, es, nb, no, sv plus aliases; US states and Canadian provinces; the curated cities and
 * regions in gazetteer.ts), skipping work-mode words ("Remote", "Office", "HQ", "Hybrid"). A segment
 * with any word that is neither a place nor a work-mode word is not trusted at all ("Neo Gulf Canada
 * Square" says nothing about Canada), except "Lehi UT"-style city + state-code pairs. Several names
 * have more than one reading ("CA" is California or Canada, "Naples" is in Italy or Florida,
 * "Georgia" is a state or a country, "New York" is a city or a state); the reading is chosen so the
 * whole string names as few countries as possible, preferring each name's default reading, and
 * rewarding "City, Qualifier" pairs that agree. A name unknown to the gazetteer followed by a state or
 * country ("New Albany, Ohio") is read as a city of that state or country.
 *
 * Structured locations (Ashby `address.postalAddress`, NAV `locationList`) are read the same way, with
 * the structured country authoritative for its own locality and region: "London" with country
 * "Canada" is London, Ontario, not London, England.
 */
// The library's plain entry plus only the locales read here: its default Node entry registers
// every one of its ~80 locales at import.
import countries from 'i18n-iso-countries/index.js';
import de from 'i18n-iso-countries/langs/de.json' with { type: 'json' };
import en from 'i18n-iso-countries/langs/en.json' with { type: 'json' };
import es from 'i18n-iso-countries/langs/es.json' with { type: 'json' };
import fr from 'i18n-iso-countries/langs/fr.json' with { type: 'json' };
import nb from 'i18n-iso-countries/langs/nb.json' with { type: 'json' };
import nl from 'i18n-iso-countries/langs/nl.json' with { type: 'json' };
import no from 'i18n-iso-countries/langs/no.json' with { type: 'json' };
import sv from 'i18n-iso-countries/langs/sv.json' with { type: 'json' };
import type { SourceLocation } from '../domain/posting.ts';
import { US_STATES } from '../domain/vocabulary.ts';
import {
  CA_PROVINCES,
  CITIES,
  CITY_STATES,
  COUNTRY_ALIASES,
  COUNTRY_CODE_ALIASES,
  MULTI_COUNTRY_REGIONS,
  SUBNATIONAL_REGIONS,
  US_STATE_ALIASES,
} from './gazetteer.ts';

/** What `resolveLocation` publishes. Every field is omitted rather than empty. */
export interface ResolvedLocation {
  /** ISO-3166 alpha-2, upper case. */
  country?: string;
  /** Canonical English name from the gazetteer ("New York" for "NYC"), or the source's own spelling. */
  city?: string;
  /** USPS two-letter code; only ever set together with country US. */
  state?: string;
}

type Reading =
  | { kind: 'country'; country: string }
  | { kind: 'state'; country: string; state: string }
  | { kind: 'city'; country: string; state?: string; city: string }
  | { kind: 'subregion'; country: string; state?: string }
  | { kind: 'region' };

/** One run of words in a location string: either known place readings or an unknown name. */
type Item = { readings: Reading[]; raw: string } | { unknown: string };

/** A chosen interpretation of one item. `literal` is an unknown name read as a city of its qualifier. */
type Choice = Reading | { kind: 'literal'; raw: string } | { kind: 'none' };

/** The evidence one string or one structured location yields. */
interface Evidence {
  countries: Set<string>;
  multiRegion: boolean;
  cities: { city: string; country: string; state?: string }[];
  usStates: Set<string>;
}

/** Locales whose country names are recognised: the languages of the feeds the service reads. */
const LOCALE_DATA = [en, de, fr, nl, es, nb, no, sv];
for (const locale of LOCALE_DATA) countries.registerLocale(locale);
const NAME_LOCALES = LOCALE_DATA.map((l) => l.locale);

/** Library names that are ordinary words or too ambiguous to read as a country on their own. */
const IGNORED_COUNTRY_NAMES = new Set(['man', 'congo', 'kongo']);

/**
 * Work-mode and filler words that say nothing about place. Matched after place names, so "Bay Area"
 * and "The Hague" survive while a lone "area" or "the" is skipped.
 */
const NOISE_WORDS = new Set([
  'remote', 'remotely', 'hybrid', 'onsite', 'on-site', 'on', 'site', 'office', 'offices', 'hq', 'headquarters', 'head',
  'based', 'only', 'preferred', 'considered', 'available', 'eligible', 'in', 'from', 'within', 'to', 'the', 'of', 'at',
  'anywhere', 'everywhere', 'multiple', 'locations', 'location', 'various', 'relocate', 'relocation', 'fully', 'full',
  'first', 'remote-first', 'flexible', 'home', 'wfh', 'work', 'working', 'in-office', 'telework', 'or', 'and', 'hub',
  'campus', 'area', 'region', 'opportunity', 'possible', 'optional', 'option', 'friendly', 'ok', 'open', 'any', 'city',
  'main', 'metro', 'greater', 'downtown', 'center', 'centre', 'branch', 'days', 'day', 'week', 'per', 'applicants',
  'candidates', 'welcome', 'required', 'time', 'zone', 'zones', 'us-based', 'usa-based', 'all', 'time-zones',
]);

/** Words that mark a name as something other than a city (mall, county, district...). */
const NOT_A_CITY = /\b(county|area|region|district|province|state|coast|island|islands|metro|greater|valley|mall|centre|center|square|plaza|outlet|outlets|office|campus|data|remote|hybrid|onsite|headquarters|hq|market|park|place|collection|shopping|premium|east|west|north|south|eastern|western|northern|southern|central|multiple|global|worldwide|anywhere|everywhere|various|team|engineering)\b/i;

/**
 * ISO alpha-2 codes not read as countries in free text: in location strings they are words or
 * labels ("AI Hub", "IT office", "Remote OR Onsite", "AM/PM shifts"). US-state and province readings
 * of the same letters (IN Indiana, OR Oregon, ME Maine, ON Ontario) are kept.
 */
const IGNORED_CODES = new Set(['AI', 'IT', 'OR', 'ON', 'IN', 'ME', 'AM', 'PM', 'NA']);

/** Case-, accent- and punctuation-spacing-insensitive key for name lookups. */
function key(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

const NAMES = new Map<string, Reading[]>();
const CODES = new Map<string, Reading[]>();
/** Country lookup for structured country fields: names, aliases and codes in any case. */
const COUNTRY_ONLY = new Map<string, string>();
let longestNameWords = 1;

function addName(name: string, reading: Reading, front = false): void {
  const k = key(name);
  if (!k) return;
  const list = (NAMES.get(k) ?? []).filter((r) => !(front && sameReading(r, reading)));
  if (front) list.unshift(reading);
  else if (!list.some((r) => sameReading(r, reading))) list.push(reading);
  NAMES.set(k, list);
  longestNameWords = Math.max(longestNameWords, k.split(' ').length);
}

function addCode(code: string, reading: Reading): void {
  const list = CODES.get(code) ?? [];
  if (!list.some((r) => sameReading(r, reading))) list.push(reading);
  CODES.set(code, list);
}

function sameReading(a: Reading, b: Reading): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * All lookup tables are built once here, at module load: resolveLocation itself only reads maps.
 * Insertion order is the default-reading order: US states and provinces before countries (so a bare
 * "CA" is California, "Georgia" is the US state), cities before states for "New York".
 */
function buildTables(): void {
  for (const [code, name] of Object.entries(US_STATES)) {
    const reading: Reading = { kind: 'state', country: 'US', state: code };
    for (const n of [name, ...(US_STATE_ALIASES[code] ?? [])]) addName(n, reading);
    addCode(code, reading);
  }
  for (const [name, code, ...aliases] of CA_PROVINCES) {
    if (!name || !code) continue;
    const reading: Reading = { kind: 'state', country: 'CA', state: code };
    for (const n of [name, ...aliases]) addName(n, reading);
    if (!countries.isValid(code)) addCode(code, reading);
  }
  const nameToCodes = new Map<string, Set<string>>();
  for (const locale of NAME_LOCALES) {
    for (const [code, names] of Object.entries(countries.getNames(locale, { select: 'all' }))) {
      for (const n of names) {
        const k = key(n);
        if (IGNORED_COUNTRY_NAMES.has(k)) continue;
        const set = nameToCodes.get(k) ?? new Set<string>();
        set.add(code);
        nameToCodes.set(k, set);
      }
    }
  }
  for (const [k, codes] of nameToCodes) {
    // A name two codes share (the two Congos) names neither.
    if (codes.size !== 1) continue;
    const [code] = codes;
    if (!code) continue;
    addName(k, { kind: 'country', country: code });
    COUNTRY_ONLY.set(k, code);
  }
  for (const [alias, code] of Object.entries(COUNTRY_ALIASES)) {
    addName(alias, { kind: 'country', country: code });
    COUNTRY_ONLY.set(key(alias), code);
  }
  for (const [alpha2, alpha3] of Object.entries(countries.getAlpha2Codes())) {
    if (!IGNORED_CODES.has(alpha2)) addCode(alpha2, { kind: 'country', country: alpha2 });
    addCode(alpha3, { kind: 'country', country: alpha2 });
    COUNTRY_ONLY.set(key(alpha2), alpha2);
    COUNTRY_ONLY.set(key(alpha3), alpha2);
  }
  // A province code that is also a country code (NL, PE, SK, NU, YT) reads as the country first.
  for (const [, code] of CA_PROVINCES) {
    if (code && countries.isValid(code)) addCode(code, { kind: 'state', country: 'CA', state: code });
  }
  for (const [code, alpha2] of Object.entries(COUNTRY_CODE_ALIASES)) {
    addCode(code, { kind: 'country', country: alpha2 });
    COUNTRY_ONLY.set(key(code), alpha2);
  }
  for (const [city, country, state, ...aliases] of CITIES) {
    if (!city || !country) continue;
    const reading: Reading = state ? { kind: 'city', country, state, city } : { kind: 'city', country, city };
    for (const n of [city, ...aliases]) addName(n, reading);
  }
  // In job locations a bare "New York" is the city far more often than the state.
  addName('New York', { kind: 'city', country: 'US', state: 'NY', city: 'New York' }, true);
  for (const name of CITY_STATES) {
    const city = NAMES.get(key(name))?.find((r) => r.kind === 'city');
    if (city) addName(name, city, true);
  }
  for (const { names, country, state, codes } of SUBNATIONAL_REGIONS) {
    const reading: Reading = state ? { kind: 'subregion', country, state } : { kind: 'subregion', country };
    for (const n of names) addName(n, reading);
    for (const code of codes ?? []) addCode(code, reading);
  }
  for (const r of MULTI_COUNTRY_REGIONS) {
    if (/^[A-Z]{2,5}$/.test(r)) addCode(r, { kind: 'region' });
    addName(r, { kind: 'region' });
  }
}
buildTables();

/** Cut a location string into segments at list separators; hyphens are split only as a fallback. */
function segments(text: string): string[] {
  return text
    .replace(/[*•·]/g, ' ')
    .split(/\s*(?:[,;|/()[\]{}+:]|\s[-–—]+\s|\s[-–—]+|[-–—]+\s|\sor\s|\s&\s|\sand\s|\s+vs\.?\s+)\s*/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function isStateCode(word: string): boolean {
  return /^[A-Z]{2}$/.test(word) && (CODES.get(word) ?? []).some((r) => r.kind === 'state');
}

/**
 * Read one segment. Returns the items it contributes, or a single unknown item when any word is
 * neither a place nor noise. Words are matched longest-first against names, then as exact upper-case
 * codes, then skipped as noise.
 */
function readSegment(segment: string): Item[] {
  const words = segment.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.]+$/gu, '')).filter(Boolean);
  const items: Item[] = [];
  const unknownWords: string[] = [];
  let unknownAtStartOnly = true;
  let i = 0;
  while (i < words.length) {
    let matched = false;
    for (let n = Math.min(longestNameWords, words.length - i); n >= 1; n--) {
      const phrase = words.slice(i, i + n).join(' ');
      const readings = NAMES.get(key(phrase)) ?? NAMES.get(key(phrase).replace(/\.$/, ''));
      // A lone two-letter lower-case word ("in", "or") is never a place.
      if (readings && !(n === 1 && phrase.length <= 2 && phrase !== phrase.toUpperCase())) {
        items.push({ readings, raw: phrase });
        i += n;
        matched = true;
        break;
      }
    }
    if (matched) continue;
    const word = words[i] ?? '';
    const codeReadings = CODES.get(word) ?? CODES.get(word.replace(/\./g, ''));
    if (codeReadings && word === word.toUpperCase()) {
      items.push({ readings: codeReadings, raw: word });
    } else if (!NOISE_WORDS.has(key(word))) {
      if (items.length > 0) unknownAtStartOnly = false;
      unknownWords.push(word);
    }
    i++;
  }
  if (unknownWords.length === 0) return items;
  // "Lehi UT", "Carrollton TX": a name followed only by a state code is a city of that state.
  const last = items[items.length - 1];
  if (unknownAtStartOnly && items.length === 1 && last && 'raw' in last && isStateCode(last.raw)) {
    return [{ unknown: unknownWords.join(' ') }, last];
  }
  return [{ unknown: words.join(' ') }];
}

function readText(text: string): Item[] {
  const items: Item[] = [];
  for (const seg of segments(text)) {
    const read = readSegment(seg);
    const onlyUnknown = read.length === 1 && read[0] !== undefined && 'unknown' in read[0];
    // "San Francisco-Hybrid", "Remote-US", "India-Karnataka": retry an unreadable segment split at hyphens.
    if (onlyUnknown && /[-–]/.test(seg)) {
      for (const part of seg.split(/[-–]/).map((p) => p.trim()).filter(Boolean)) items.push(...readSegment(part));
    } else {
      items.push(...read);
    }
  }
  return items;
}

function choiceCountry(c: Choice): string | undefined {
  return c.kind === 'country' || c.kind === 'state' || c.kind === 'city' || c.kind === 'subregion' ? c.country : undefined;
}

function choiceState(c: Choice): string | undefined {
  return c.kind === 'state' || c.kind === 'city' || c.kind === 'subregion' ? c.state : undefined;
}

function granularity(c: Choice): number {
  if (c.kind === 'city') return 0;
  if (c.kind === 'state' || c.kind === 'subregion') return 1;
  if (c.kind === 'country') return 2;
  return 3;
}

function isQualifier(c: Choice): boolean {
  return c.kind === 'state' || c.kind === 'country' || c.kind === 'subregion';
}

/** A name the source wrote that can stand as a city: letters only, a few words, not a mall or county. */
function plausibleCityName(raw: string): boolean {
  const s = raw.trim();
  return (
    s.replace(/[^\p{L}]/gu, '').length >= 4 &&
    s.length <= 40 &&
    /^\p{L}[\p{L}\p{M}'’. -]*$/u.test(s) &&
    s.split(/\s+/).length <= 4 &&
    !NOT_A_CITY.test(key(s)) &&
    !NOISE_WORDS.has(key(s))
  );
}

/** "OSLO" → "Oslo", "nevada" → "Nevada"; mixed case is kept as the source wrote it. */
function displayName(raw: string): string {
  const s = raw.trim().replace(/\s+/g, ' ');
  if (s !== s.toUpperCase() && s !== s.toLowerCase()) return s;
  return s.toLowerCase().replace(/(^|[\s'-])(\p{L})/gu, (_m, sep: string, ch: string) => sep + ch.toUpperCase());
}

const MAX_COMBINATIONS = 4096;

/**
 * Pick one reading per item (see the module docstring for the preferences), then collect evidence.
 * `forcedCountry` (a structured country field) rules out readings in any other country.
 */
function resolveItems(items: Item[], forcedCountry?: string): Evidence {
  const evidence: Evidence = { countries: new Set(), multiRegion: false, cities: [], usStates: new Set() };
  const options: Choice[][] = items.map((item, idx) => {
    const next = items[idx + 1];
    const nextIsQualifier = next !== undefined && 'readings' in next && next.readings.some((r) => r.kind !== 'city' && r.kind !== 'region');
    if ('unknown' in item) {
      const opts: Choice[] = [{ kind: 'none' }];
      if (nextIsQualifier && plausibleCityName(item.unknown)) opts.push({ kind: 'literal', raw: item.unknown });
      return opts;
    }
    let opts: Choice[] = item.readings.filter((r) => forcedCountry === undefined || r.kind === 'region' || r.country === forcedCountry);
    if (nextIsQualifier && plausibleCityName(item.raw) && item.readings.some((r) => r.kind === 'city' || r.kind === 'state')) {
      opts.push({ kind: 'literal', raw: item.raw });
    }
    if (forcedCountry !== undefined) opts.push({ kind: 'none' });
    if (opts.length === 0) opts = [{ kind: 'none' }];
    return opts;
  });

  const penalty = (itemIdx: number, optIdx: number, choice: Choice): number => {
    const item = items[itemIdx];
    if (choice.kind === 'none') return item && 'unknown' in item ? 0 : 2;
    if (choice.kind === 'literal') return item && 'unknown' in item ? 0 : 0.8;
    return 0.3 * optIdx;
  };

  const score = (picks: number[]): { value: number; chosen: Choice[] } => {
    const chosen: Choice[] = picks.map((p, i) => options[i]?.[p] ?? { kind: 'none' });
    // A literal city takes its country and state from the qualifier that follows it.
    const resolved: Choice[] = chosen.map((c, i) => {
      if (c.kind !== 'literal') return c;
      const next = chosen[i + 1];
      const country = next ? choiceCountry(next) : undefined;
      if (!next || !isQualifier(next) || !country) return { kind: 'none' };
      const state = choiceState(next);
      return state ? { kind: 'city', city: displayName(c.raw), country, state } : { kind: 'city', city: displayName(c.raw), country };
    });
    const found = new Set<string>();
    for (const c of resolved) {
      const country = choiceCountry(c);
      if (country) found.add(country);
    }
    let value = -10 * Math.max(0, found.size - 1);
    chosen.forEach((c, i) => (value -= penalty(i, picks[i] ?? 0, c)));
    for (let i = 0; i + 1 < resolved.length; i++) {
      const a = resolved[i];
      const b = resolved[i + 1];
      // Only a finer place followed by a coarser one is a "City, State, Country" pair.
      if (!a || !b || !isQualifier(b) || granularity(a) >= granularity(b)) continue;
      const sa = choiceState(a);
      const sb = choiceState(b);
      if (choiceCountry(a) === choiceCountry(b) && (sa === undefined || sb === undefined || sa === sb)) value += 1;
    }
    return { value, chosen: resolved };
  };

  const combinations = options.reduce((n, o) => n * o.length, 1);
  let best: { value: number; chosen: Choice[] };
  if (combinations > MAX_COMBINATIONS) {
    best = score(options.map(() => 0));
  } else {
    const picks = options.map(() => 0);
    best = score(picks);
    for (let n = 1; n < combinations; n++) {
      // Odometer increment over the option indices.
      for (let i = picks.length - 1; i >= 0; i--) {
        const len = options[i]?.length ?? 1;
        picks[i] = ((picks[i] ?? 0) + 1) % len;
        if (picks[i] !== 0) break;
      }
      const candidate = score(picks);
      if (candidate.value > best.value) best = candidate;
    }
  }

  for (const c of best.chosen) {
    if (c.kind === 'region') evidence.multiRegion = true;
    const country = choiceCountry(c);
    if (country) evidence.countries.add(country);
    const state = choiceState(c);
    if (country === 'US' && state) evidence.usStates.add(state);
    if (c.kind === 'city') evidence.cities.push(c.state ? { city: c.city, country: c.country, state: c.state } : { city: c.city, country: c.country });
  }
  return evidence;
}

function emptyEvidence(): Evidence {
  return { countries: new Set(), multiRegion: false, cities: [], usStates: new Set() };
}

/** A structured country field: a name, alias or code in any case, or a region ("European Union"). */
function structuredCountry(value: string): { country?: string; items: Item[] } {
  const k = key(value);
  const direct = COUNTRY_ONLY.get(k) ?? COUNTRY_ONLY.get(k.replace(/\.$/, ''));
  if (direct) return { country: direct, items: [{ readings: [{ kind: 'country', country: direct }], raw: value }] };
  const items = readText(value).filter((i) => 'readings' in i);
  const countriesNamed = new Set(items.flatMap((i) => ('readings' in i ? i.readings.filter((r) => r.kind === 'country').map((r) => (r.kind === 'country' ? r.country : '')) : [])));
  return countriesNamed.size === 1 ? { country: [...countriesNamed][0], items } : { items };
}

function readStructured(loc: SourceLocation): Evidence {
  const countryField = loc.country?.trim() ? structuredCountry(loc.country) : { items: [] as Item[] };
  // A region field only qualifies the locality; names outside the structured country are dropped so
  // they can neither add a country nor be taken for a city ("Moab", "Utah", "United Kingdom").
  const regionItems = (loc.region?.trim() ? readText(loc.region) : []).flatMap((i): Item[] => {
    if (!('readings' in i)) return [];
    const readings = i.readings.filter((r) => r.kind !== 'city' && (countryField.country === undefined || r.kind === 'region' || r.country === countryField.country));
    return readings.length > 0 ? [{ readings, raw: i.raw }] : [];
  });
  const cityItems = loc.city?.trim() ? readText(loc.city) : [];
  if (countryField.items.length === 0 && regionItems.length === 0 && cityItems.length === 0) return emptyEvidence();
  return resolveItems([...cityItems, ...regionItems, ...countryField.items], countryField.country);
}

function merge(into: Evidence, from: Evidence): void {
  for (const c of from.countries) into.countries.add(c);
  for (const s of from.usStates) into.usStates.add(s);
  into.multiRegion ||= from.multiRegion;
  into.cities.push(...from.cities);
}

/**
 * Resolve a posting's location evidence into country, city and state.
 *
 * @param location  the primary free-text location as the source gave it ("San Francisco, CA",
 *                  "Remote (US)", "London or Remote (UK)").
 * @param locations every structured location the source gave, primary first (`text`, `country`,
 *                  `region`, `city` as written by the source).
 * @returns `{ country?, city?, state? }`: country ISO-3166 alpha-2, omitted when the evidence names
 *          no country, two countries or a multi-country region; city only with a published country and
 *          exactly one city named, in that country; state (USPS code) only with country US and
 *          exactly one state named. Pure and deterministic; lookup tables are built at module load.
 */
export function resolveLocation(location: string | undefined, locations: SourceLocation[]): ResolvedLocation {
  const all = emptyEvidence();
  if (location?.trim()) merge(all, resolveItems(readText(location)));
  for (const loc of locations) {
    if (loc.text?.trim()) merge(all, resolveItems(readText(loc.text)));
    merge(all, readStructured(loc));
  }
  if (all.multiRegion || all.countries.size !== 1) return {};
  const [country] = all.countries;
  if (!country) return {};
  const result: ResolvedLocation = { country };
  const cities = new Map<string, { city: string; country: string; state?: string }>();
  for (const c of all.cities) cities.set(key(c.city), c);
  if (cities.size === 1) {
    const [only] = cities.values();
    // "SF / NY": a second place named only by its state still makes the city one of two.
    const otherState = country === 'US' && [...all.usStates].some((s) => s !== only?.state);
    if (only && only.country === country && !otherState) result.city = only.city;
  }
  if (country === 'US' && all.usStates.size === 1) {
    const [state] = all.usStates;
    if (state) result.state = state;
  }
  return result;
}
