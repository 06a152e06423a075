const MAX_SLUG_LENGTH = 48;

/**
 * The organization's slug, as PostHog makes one from the name: ASCII letters, digits, `_` and
 * single hyphens. An organization's name never changes, so neither does its slug.
 */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_\s-]/g, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/[-_]+$/, '');
  return slug === '' ? 'organization' : slug;
}
