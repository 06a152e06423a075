/** A JS date as ClickHouse DateTime64 text in UTC (`2024-01-02 03:04:05.678000`). */
export function toClickhouseDateTime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '000');
}

/** Catalog ISO-8601 text as ClickHouse DateTime64(6) text. */
export function isoToClickhouse(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(iso);
  if (!match) return toClickhouseDateTime(new Date(iso));
  return `${match[1]} ${match[2]}.${(match[3] ?? '').padEnd(6, '0').slice(0, 6)}`;
}
