import type { DateTime } from 'luxon';
import { formPair } from '../../util/form-encoding.js';
import { zeroPad as pad } from '../../util/time.js';
import type { JsonObject } from './filter-echo.js';

/**
 * PostHog's persons URLs of one trend response. Every URL is the filter's query string with a few
 * parameters of its own (entity, bucket dates, breakdown value) set over it, so the filter's
 * pairs are encoded once per response instead of once per bucket of every series.
 */
export class PersonsUrls {
  private readonly filterPairs: Array<[key: string, encoded: string | null]>;

  constructor(
    private readonly projectId: number,
    private readonly filterJson: JsonObject,
    private readonly cacheKey: string,
  ) {
    this.filterPairs = Object.entries(filterJson).map(([key, value]) => [key, encodePair(key, value)]);
  }

  /** The URL of `{...filter, ...extra}`: extra's keys replace the filter's in place, new ones follow. */
  url(extra: JsonObject): string {
    const pairs: Array<string | null> = this.filterPairs.map(([key, encoded]) => (Object.hasOwn(extra, key) ? encodePair(key, extra[key]) : encoded));
    for (const [key, value] of Object.entries(extra)) if (!Object.hasOwn(this.filterJson, key)) pairs.push(encodePair(key, value));
    const query = pairs.filter((pair): pair is string => pair !== null).join('&');
    return `api/projects/${this.projectId}/persons/trends/?${query}&cache_invalidation_key=${this.cacheKey}`;
  }
}

/** One form-encoded `key=value` pair (objects as JSON); null and undefined values are left out. */
function encodePair(key: string, value: unknown): string | null {
  return value === null || value === undefined ? null : formPair(key, value);
}

/** DRF's datetime rendering: ISO 8601 with microseconds when present and `Z` for UTC. */
export function pythonIsoformat(at: DateTime): string {
  const fraction = at.millisecond === 0 ? '' : at.millisecond === 999 ? '.999999' : `.${pad(at.millisecond, 3)}000`;
  const offset = at.offset === 0 ? 'Z' : `${at.offset < 0 ? '-' : '+'}${pad(Math.trunc(at.offset / 60))}:${pad(at.offset % 60)}`;
  return `${pad(at.year, 4)}-${pad(at.month)}-${pad(at.day)}T${pad(at.hour)}:${pad(at.minute)}:${pad(at.second)}${fraction}${offset}`;
}
