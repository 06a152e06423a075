import { NotFound } from '../../errors.js';

/** An integer `:id` of a catalog row; anything else names nothing. */
export function itemId(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new NotFound();
  return Number(value);
}
