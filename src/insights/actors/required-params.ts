import { ValidationError } from '../../errors.js';
import { textOf } from '../../util/text.js';
import type { RawInput } from '../filter-model.js';

export function requiredString(input: RawInput, key: string, detail: string): string {
  const value = input[key];
  if (value === undefined || value === null || textOf(value).trim() === '') throw new ValidationError(key, detail, 'required');
  return textOf(value).trim();
}

export function requiredInteger(input: RawInput, key: string, detail: string): number {
  const text = requiredString(input, key, detail);
  if (!/^-?\d+$/.test(text)) throw new ValidationError(key, `${key} must be an integer.`);
  return Number(text);
}
