import { EARLIEST_EVENT_TIME, LATEST_EVENT_TIME } from './event-time.js';
import { DAY_MS } from '../util/time.js';

/**
 * Lengths of the successive windows a page is looked for in, then the rest of history. A page of
 * recent events is found in the first day, read from the few parts the table's sort key
 * (team, day, …) and monthly partitions point at; a sparse filter widens the search step by
 * step, and reads every window at most once.
 */
const WINDOW_DAYS = [1, 7, 30, 365];

/** A span of event time: `from` inclusive, `to` exclusive, null for no bound on that side. */
export interface TimeWindow {
  from: number | null;
  to: number | null;
}

/**
 * Windows going back in time from `anchor` (the page's upper bound), each ending where the one
 * before it starts; the first is unbounded above and the last below, since the request's own
 * bounds apply to every window. None starts before `lowest`, the request's lower bound.
 */
export function newestFirstWindows(anchor: number, lowest: number | null): TimeWindow[] {
  const floor = Math.max(lowest ?? EARLIEST_EVENT_TIME, EARLIEST_EVENT_TIME);
  const windows: TimeWindow[] = [];
  let to: number | null = null;
  let reach = anchor;
  for (const days of WINDOW_DAYS) {
    reach -= days * DAY_MS;
    if (reach <= floor) break;
    windows.push({ from: reach, to });
    to = reach;
  }
  windows.push({ from: null, to });
  return windows;
}

/** Windows going forward in time from `anchor` (the page's lower bound), up to `highest`. */
export function oldestFirstWindows(anchor: number, highest: number): TimeWindow[] {
  const ceiling = Math.min(highest, LATEST_EVENT_TIME);
  const windows: TimeWindow[] = [];
  let from: number | null = null;
  let reach = anchor;
  for (const days of WINDOW_DAYS) {
    reach += days * DAY_MS;
    if (reach >= ceiling) break;
    windows.push({ from, to: reach });
    from = reach;
  }
  windows.push({ from, to: null });
  return windows;
}
