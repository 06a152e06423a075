/** Consecutive slices of `items`, each `size` long but the last: multi-row statements stay under the bound-parameter limits. */
export function* chunks<T>(items: readonly T[], size: number): Generator<T[]> {
  for (let start = 0; start < items.length; start += size) yield items.slice(start, start + size);
}
