import { parseCompareTo } from '../trends/compare-to-period.js';
import { errorAtNodePath, optionalBoolean, optionalObject, optionalString, type JsonObject } from './insight-node-fields.js';

/**
 * `compareFilter`: `compare` runs the previous period too; `compare_to` (`-1w`, `-1m`, a date)
 * moves the compared period to start that far before the current one. Without `compare`,
 * `compare_to` compares nothing, as in PostHog.
 */
export function compareFields(node: JsonObject, path: string): { compare: boolean; compareTo: string | null } {
  const at = `${path}.compareFilter`;
  const compareFilter = optionalObject(node.compareFilter, at);
  const compare = optionalBoolean(compareFilter.compare, `${at}.compare`);
  const compareTo = optionalString(compareFilter.compare_to, `${at}.compare_to`);
  if (compareTo === null || compareTo === '') return { compare, compareTo: null };
  try {
    parseCompareTo(compareTo);
  } catch (error) {
    throw errorAtNodePath(error, path, { compare_to: 'compareFilter.compare_to' });
  }
  return { compare, compareTo: compare ? compareTo : null };
}
