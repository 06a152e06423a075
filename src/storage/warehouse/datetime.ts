/** A JS date as ClickHouse DateTime64 text in UTC (`2024-01-02 03:04:05.678000`). */
export function toClickhouseDateTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '000');
}
