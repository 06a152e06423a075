import { toClickhouseDateTime } from '../storage/warehouse/datetime.js';

/**
 * Times of the events list as epoch milliseconds, kept inside what the warehouse's
 * DateTime64(6) column holds (capture stores nothing outside it either), so no bound a request
 * gives can make a query fail.
 */
export const EARLIEST_EVENT_TIME = Date.UTC(1900, 0, 1);
export const LATEST_EVENT_TIME = Date.UTC(2299, 11, 31, 23, 59, 59, 999);

export function clampEventTime(ms: number): number {
  return Math.min(LATEST_EVENT_TIME, Math.max(EARLIEST_EVENT_TIME, ms));
}

/** DateTime64(6) text of a time, as bound parameters take it. */
export function warehouseTime(ms: number): string {
  return toClickhouseDateTime(new Date(clampEventTime(ms)));
}

const WAREHOUSE_TIME = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})\.(\d{6})$/;

/** DateTime64(6) text (`2024-01-02 03:04:05.123456`) as ISO-8601 UTC with all six digits. */
export function isoFromWarehouseTime(text: string): string {
  const match = WAREHOUSE_TIME.exec(text);
  if (!match) throw new Error(`not a DateTime64(6) text: ${text}`);
  return `${match[1]}T${match[2]}.${match[3]}Z`;
}

/** The millisecond of a DateTime64(6) text, or null when it is not one. */
export function msFromWarehouseTime(text: string): number | null {
  const match = WAREHOUSE_TIME.exec(text);
  if (!match) return null;
  const ms = Date.parse(`${match[1]}T${match[2]}.${match[3]!.slice(0, 3)}Z`);
  return Number.isNaN(ms) ? null : ms;
}
