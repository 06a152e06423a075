import { ValidationError } from '../errors.js';

/** A property filter as PostHog stores it in a project's test_account_filters. */
export interface PropertyFilterInput {
  key: string;
  value?: unknown;
  operator?: string;
  type?: string;
  [extra: string]: unknown;
}

/** Checks the shape of a project's test_account_filters; the insight compiler checks operators when it uses them. */
export function validateTestAccountFilters(value: unknown): PropertyFilterInput[] {
  if (!Array.isArray(value)) {
    throw new ValidationError('test_account_filters', 'Expected a list of property filters.');
  }
  return value.map((filter, index) => {
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      throw new ValidationError('test_account_filters', `Filter ${index} must be an object.`);
    }
    const candidate = filter as Record<string, unknown>;
    if (typeof candidate.key !== 'string' || candidate.key === '') {
      throw new ValidationError('test_account_filters', `Filter ${index} must have a non-empty "key".`);
    }
    return candidate as PropertyFilterInput;
  });
}
