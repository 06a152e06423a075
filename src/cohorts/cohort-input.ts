import { ValidationError } from '../errors.js';

/** A create or PATCH body as received (JSON, or multipart text fields and the `csv` file): PostHog's fields, not yet judged. */
export interface CohortBody {
  name?: unknown;
  description?: unknown;
  is_static?: unknown;
  filters?: unknown;
  groups?: unknown;
  deleted?: unknown;
  csv?: unknown;
}

/** The fields of a create or PATCH body (JSON, or multipart text fields), validated; absent stays undefined. */
export interface CohortInput {
  name?: string | null;
  description?: string;
  isStatic?: boolean;
  filters?: unknown;
  groups?: unknown;
  deleted?: boolean;
  /** Uploaded CSV (multipart field `csv`). */
  csv?: Buffer;
}

/** Multipart fields are text: booleans arrive as "true"/"false". */
function booleanField(value: unknown, attr: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'True') return true;
  if (value === 'false' || value === 'False') return false;
  throw new ValidationError(attr, 'Must be a valid boolean.', 'invalid');
}

/** Multipart fields carry JSON as text. */
function jsonField(value: unknown, attr: string): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new ValidationError(attr, 'Value must be valid JSON.', 'invalid');
  }
}

export function parseCohortInput(body: CohortBody): CohortInput {
  const input: CohortInput = {};
  if (body.name !== undefined) {
    if (body.name !== null && typeof body.name !== 'string') throw new ValidationError('name', 'Not a valid string.', 'invalid');
    if (typeof body.name === 'string' && body.name.length > 400) {
      throw new ValidationError('name', 'Ensure this field has no more than 400 characters.', 'max_length');
    }
    input.name = body.name;
  }
  if (body.description !== undefined && body.description !== null) {
    if (typeof body.description !== 'string') throw new ValidationError('description', 'Not a valid string.', 'invalid');
    input.description = body.description;
  }
  if (body.is_static !== undefined && body.is_static !== null) input.isStatic = booleanField(body.is_static, 'is_static');
  if (body.deleted !== undefined && body.deleted !== null) input.deleted = booleanField(body.deleted, 'deleted');
  if (body.filters !== undefined && body.filters !== null) input.filters = jsonField(body.filters, 'filters');
  if (body.groups !== undefined && body.groups !== null) input.groups = jsonField(body.groups, 'groups');
  if (body.csv !== undefined) {
    if (!Buffer.isBuffer(body.csv)) throw new ValidationError('csv', 'The submitted data was not a file.', 'invalid');
    input.csv = body.csv;
  }
  return input;
}
