/** PostHog's default display-name properties, used when the project sets none. */
export const DEFAULT_DISPLAY_NAME_PROPERTIES = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName'];

/** PostHog's `is_anonymous_id`: five dash-separated lowercase alphanumeric groups (UUID-like ids). */
const ANONYMOUS_ID = /^([a-z0-9]+-){4}([a-z0-9]+)$/;

export function isAnonymousId(distinctId: string): boolean {
  return ANONYMOUS_ID.test(distinctId);
}

/** Non-anonymous ids first, each part keeping the order the person gained them (a stable sort). */
export function orderDistinctIds(distinctIds: readonly string[]): string[] {
  return [...distinctIds.filter((id) => !isAnonymousId(id)), ...distinctIds.filter(isAnonymousId)];
}

/** Python truthiness of a JSON value: what PostHog's `if value:` accepts. */
function isTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === 'object') return Object.keys(value).length > 0;
  return Boolean(value);
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The first truthy display-name property, else the first non-anonymous distinct id, else the
 * integer id as text.
 */
export function personName(
  id: number,
  properties: Record<string, unknown>,
  distinctIds: readonly string[],
  displayNameProperties: readonly string[] | null,
): string {
  const keys = displayNameProperties && displayNameProperties.length > 0 ? displayNameProperties : DEFAULT_DISPLAY_NAME_PROPERTIES;
  for (const key of keys) {
    const value = properties[key];
    if (isTruthy(value)) return asText(value);
  }
  return distinctIds.find((distinctId) => !isAnonymousId(distinctId)) ?? String(id);
}
