/** Distinct ids PostHog refuses to merge on: placeholders that many users would share. */
const ILLEGAL_CASE_INSENSITIVE = ['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false'];
const ILLEGAL_CASE_SENSITIVE = ['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined'];

function quoted(values: string[]): string[] {
  return values.flatMap((value) => [value, `'${value}'`, `"${value}"`]);
}

const INSENSITIVE = new Set(quoted(ILLEGAL_CASE_INSENSITIVE));
const SENSITIVE = new Set(quoted(ILLEGAL_CASE_SENSITIVE));

export function isIllegalMergeId(distinctId: string): boolean {
  const trimmed = distinctId.trim();
  return trimmed === '' || INSENSITIVE.has(trimmed.toLowerCase()) || SENSITIVE.has(trimmed);
}

/** Longest distinct id kept, in code points; PostHog's capture cuts longer ones to this. */
export const MAX_DISTINCT_ID_LENGTH = 200;

/** The first `max` code points of `text`; a text of at most `max` UTF-16 units is whole already. */
export function truncateCodePoints(text: string, max: number): string {
  return text.length <= max ? text : [...text].slice(0, max).join('');
}
