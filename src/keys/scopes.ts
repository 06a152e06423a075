import { ValidationError } from '../errors.js';

/** The scope objects of PostHog's personal API keys that Tally serves or accepts on keys. */
export const SCOPE_OBJECTS = [
  'action',
  'activity_log',
  'annotation',
  'cohort',
  'dashboard',
  'event_definition',
  'experiment',
  'feature_flag',
  'group',
  'insight',
  'organization',
  'person',
  'project',
  'property_definition',
  'query',
  'session_recording',
  'user',
] as const;

export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
export type Scope = `${ScopeObject}:${'read' | 'write'}`;

const KNOWN_OBJECTS = new Set<string>(SCOPE_OBJECTS);

export function validateScopes(scopes: readonly string[]): string[] {
  if (scopes.length === 0) throw new ValidationError('scopes', 'At least one scope is required.');
  for (const scope of scopes) {
    if (scope === '*') continue;
    const [object, access, extra] = scope.split(':');
    if (extra !== undefined || !object || !KNOWN_OBJECTS.has(object) || (access !== 'read' && access !== 'write')) {
      throw new ValidationError('scopes', `Invalid scope: ${scope}`);
    }
  }
  return [...new Set(scopes)];
}

/** `*` grants everything and `x:write` implies `x:read`. */
export function grantsScope(granted: readonly string[], required: Scope): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  const [object, access] = required.split(':');
  return access === 'read' && granted.includes(`${object}:write`);
}
