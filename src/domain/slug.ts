/**
 * URL slugs for job rows and companies: lower-case ASCII words joined by hyphens, diacritics folded
 * ("Développeur Sénior" → "developpeur-senior"), at most 80 characters, never empty.
 */
export function slugify(text: string, fallback = 'item'): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/g, '');
  return slug || fallback;
}

/** Job slug (spec: Job.slug): title slug plus the first 8 characters of the uuid. */
export function jobSlug(title: string, id: string): string {
  return `${slugify(title, 'job')}-${id.slice(0, 8)}`;
}
