import { stringify } from 'csv-stringify/sync';
import type { SeriesItem } from './trend-series.js';

/** Python's float text, as PostHog's CSV renderer writes the series values (`1.0`, `2.5`). */
function pythonFloat(value: unknown): string {
  if (typeof value !== 'number') return '';
  return Number.isInteger(value) ? value.toFixed(1) : String(value);
}

function seriesName(item: SeriesItem): string {
  const action = item.action as { custom_name?: string | null } | undefined;
  return action?.custom_name || item.label;
}

/** One row per series: `series` (custom name or label), then one column per label of the first series. */
export function trendCsv(items: SeriesItem[]): string {
  const labels = items[0]?.labels ?? [];
  const rows = items.map((item) => {
    const byLabel = new Map(item.labels.map((label, index) => [label, item.data[index]]));
    return [seriesName(item), ...labels.map((label) => pythonFloat(byLabel.get(label)))];
  });
  return stringify([['series', ...labels], ...rows]);
}
