import { ValidationError } from '../errors.js';

/** A person as a path names it: the integer id or the UUID. */
export type PersonKey = { kind: 'id'; id: number } | { kind: 'uuid'; uuid: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^\d+$/;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** Reads `:id`; anything but an integer or a UUID is PostHog's "use ?distinct_id=" error. */
export function parsePersonKey(value: string): PersonKey {
  if (isUuid(value)) return { kind: 'uuid', uuid: value.toLowerCase() };
  if (INTEGER.test(value)) return { kind: 'id', id: Number(value) };
  throw new ValidationError(
    null,
    `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${value} instead.`,
  );
}
