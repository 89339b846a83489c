/**
 * URL slugs for job rows and companies: lower-case ASCII words joined by hyphens, at most 80
 * characters, never empty.
 *
 * Letters are transliterated by `@sindresorhus/slugify` (its `@sindresorhus/transliterate` tables), not
 * dropped: "Программист" → "programmist", "Straßenbauer" → "strassenbauer", "Développeur Sénior" →
 * "developpeur-senior", "&" → "and" (issue #15 class 6). `decamelize` is off so "GmbH" stays one word.
 * Scripts the library cannot transliterate (Chinese, Japanese) leave nothing, and the fallback is used.
 *
 * Stability: a slug is computed once, when a job row is inserted (domain/lifecycle.ts) or a company row
 * is created or renamed (store/companies.ts), and stored. Changing these rules therefore changes no
 * existing job slug and no existing company slug; only new rows, and companies whose display name
 * changes, get slugs by the new rules (retired company slugs still answer 301).
 */
import slugifyText from '@sindresorhus/slugify';

const MAX_LENGTH = 80;

/**
 * @param text     any display text (title, company name).
 * @param fallback returned when nothing readable remains (default `item`).
 * @returns the slug: `[a-z0-9]+(-[a-z0-9]+)*`, at most 80 characters.
 */
export function slugify(text: string, fallback = 'item'): string {
  const slug = slugifyText(text, { decamelize: false })
    .slice(0, MAX_LENGTH)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** Job slug (spec: Job.slug): title slug plus the first 8 characters of the uuid. */
export function jobSlug(title: string, id: string): string {
  return `${slugify(title, 'job')}-${id.slice(0, 8)}`;
}
