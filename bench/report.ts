import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConditionTimings } from './timing.js';

export interface Measurement {
  suite: string;
  name: string;
  unit: string;
  /**
   * For a query: the data it was timed on. `fresh`: right after the load through capture, on the
   * server that took it; `settled`: after a restart once ClickHouse merged what the load wrote.
   */
  condition?: ConditionTimings['condition'];
  /** Tally's figure (median for latencies). */
  value: number;
  p95?: number;
  /** The raw engine doing the same work in the same run. */
  raw?: number;
  /** value / raw for latencies, raw / value never: the ratio always reads "Tally ÷ raw". */
  ratio?: number;
  note?: string;
}

const round = (value: number | undefined, digits = 2) => (value === undefined ? '' : Number.isInteger(value) ? String(value) : value.toFixed(digits));

export function printTable(measurements: readonly Measurement[]): string {
  const header = ['suite', 'measurement', 'condition', 'unit', 'tally (median)', 'p95', 'raw', 'ratio', 'note'];
  const rows = measurements.map((m) => [m.suite, m.name, m.condition ?? '', m.unit, round(m.value), round(m.p95), round(m.raw), round(m.ratio), m.note ?? '']);
  const lines = [header, ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  lines.splice(1, 0, `|${header.map(() => '---').join('|')}|`);
  return lines.join('\n');
}

/**
 * Each query's latency through the API against the raw engine's for the same work (medians, the
 * API's p95 and their ratio): settled and, when the data was loaded in this run, fresh, one after
 * the other; what each side saw is in the note of the query listed first.
 */
export function comparisons(suite: string, names: readonly { name: string }[], settled: ConditionTimings, fresh: ConditionTimings | null): Measurement[] {
  const conditions = fresh ? [settled, fresh] : [settled];
  return names.flatMap(({ name }, index) =>
    conditions.map(({ condition, timings, note }) => {
      const { api, raw } = timings.get(name)!;
      const measurement: Measurement = { suite, name, condition, unit: 'ms', value: api.median, p95: api.p95, raw: raw.median, ratio: api.median / raw.median };
      return index === 0 ? { ...measurement, note } : measurement;
    }),
  );
}

/** The capture rate of a suite's load, marked with when it ran if the data was kept from an earlier run. */
export function loadMeasurement(suite: string, name: string, perSecond: number, reusedFrom: string | null): Measurement {
  const note = `loaded ${reusedFrom}: kept data, so settled only (fresh needs a load in this run)`;
  return { suite, name, unit: 'events/s', value: Math.round(perSecond), ...(reusedFrom ? { note } : {}) };
}

/** The server's peak RSS while loading (recorded when the data was kept from an earlier run) and while querying. */
export function peakMeasurements(suite: string, loadPeakMb: number, queryPeakMb: number, reusedFrom: string | null): Measurement[] {
  return [
    { suite, name: 'server peak RSS (load)', unit: 'MB', value: loadPeakMb, ...(reusedFrom ? { note: `loaded ${reusedFrom}` } : {}) },
    { suite, name: 'server peak RSS (queries, after a restart)', unit: 'MB', value: Math.round(queryPeakMb) },
  ];
}

/** Writes the run to bench/results/<timestamp>.{json,md} (git-ignored) and returns the Markdown. */
export function writeResults(measurements: readonly Measurement[]): string {
  const directory = path.resolve('bench/results');
  fs.mkdirSync(directory, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const machine = `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GB, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
  const markdown = `# Tally benchmark, ${new Date().toISOString()}\n\nMachine: ${machine}\n\n${printTable(measurements)}\n`;
  fs.writeFileSync(path.join(directory, `${stamp}.json`), JSON.stringify({ machine, at: new Date().toISOString(), measurements }, null, 2));
  fs.writeFileSync(path.join(directory, `${stamp}.md`), markdown);
  return markdown;
}
