import { RequiredFieldError, ValidationError } from '../errors.js';
import type { QueryNode } from './query-kind.js';
import { isJsonObject as isObject } from '../util/json.js';

export { isObject };

/** Readers of a query node's fields; a field of the wrong shape is a 400 naming its dotted path. */

export function requiredString(node: QueryNode, field: string, path: string): string {
  const value = node[field];
  if (value === undefined || value === null) throw new RequiredFieldError(`${path}.${field}`);
  if (typeof value !== 'string') throw new ValidationError(`${path}.${field}`, 'Must be a string.');
  return value;
}

export function optionalString(node: QueryNode, field: string, path: string): string | null {
  const value = node[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new ValidationError(`${path}.${field}`, 'Must be a string.');
  return value;
}

export function optionalBoolean(node: QueryNode, field: string, path: string): boolean {
  const value = node[field];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new ValidationError(`${path}.${field}`, 'Must be a boolean.');
  return value;
}

export function optionalInteger(node: QueryNode, field: string, path: string, min: number): number | null {
  const value = node[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(`${path}.${field}`, `Must be an integer of at least ${min}.`);
  }
  return value;
}

export function optionalStringList(node: QueryNode, field: string, path: string): string[] | null {
  const value = node[field];
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new ValidationError(`${path}.${field}`, 'Must be a list of strings.');
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw new ValidationError(`${path}.${field}.${index}`, 'Must be a string.');
  });
  return value as string[];
}
