/**
 * Something ingestion worked around in an event, recorded for its project (PostHog's ingestion
 * warnings): a timestamp replaced, a merge refused, an event that could not be stored.
 */
export interface IngestionWarning {
  type: string;
  details: Record<string, unknown>;
}

/** A warning as the consumer stores it: for a project, at the time its request was received. */
export interface ProjectIngestionWarning extends IngestionWarning {
  teamId: number;
  /** Epoch milliseconds. */
  at: number;
}

/** Longest text a warning keeps of a value: a warning about a 1 MB value must not be 1 MB. */
const MAX_DETAIL_CHARS = 500;

function shortened(value: unknown): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean' || value === undefined) return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length <= MAX_DETAIL_CHARS ? value : `${text.slice(0, MAX_DETAIL_CHARS)}…`;
}

/** A warning whose detail values are cut to a readable length. */
export function ingestionWarning(type: string, details: Record<string, unknown>): IngestionWarning {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) if (value !== undefined) kept[key] = shortened(value);
  return { type, details: kept };
}
