import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { ChdbWarehouse } from '../src/storage/warehouse/chdb-warehouse.js';
import type { TallyServer } from '../test/support/tally.js';
import { memoryOf } from './memory.js';

export interface Timing {
  median: number;
  p95: number;
}

/** Runs `work` `runs` times after three warm-ups (caches, JIT) and returns each run's milliseconds. */
async function sampleRuns(work: () => Promise<unknown>, runs = 10): Promise<number[]> {
  for (let warmUp = 0; warmUp < 3; warmUp++) await work();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples;
}

function summarize(samples: readonly number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { median: at(0.5), p95: at(0.95) };
}

/** One query of a suite: through the API, and as the raw engine doing the same work. */
export interface ApiRawCase {
  name: string;
  api: (server: TallyServer) => Promise<unknown>;
  raw: (warehouse: ChdbWarehouse) => Promise<unknown>;
}

export interface ApiRawTiming {
  api: Timing;
  raw: Timing;
}

/**
 * Times every case through the running server, then (the server stopped, as chDB lets one process
 * hold a data directory) as raw SQL on the same warehouse, over several rounds, each side's
 * figures taken from all its rounds' runs: one process's luck with caches or the scheduler does not
 * decide a ratio. Leaves the server stopped; returns the timings and the server's peak RSS.
 */
export async function timeApiAgainstRaw(
  server: TallyServer,
  cases: readonly ApiRawCase[],
  rounds = 3,
): Promise<{ timings: Map<string, ApiRawTiming>; peakMb: number }> {
  const api = new Map(cases.map((entry) => [entry.name, [] as number[]]));
  const raw = new Map(cases.map((entry) => [entry.name, [] as number[]]));
  let peakMb = 0;
  const warehouseDir = path.join(loadConfig({ TALLY_DATA_DIR: server.dataDir }).dataDir, 'warehouse');
  for (let round = 0; round < rounds; round++) {
    if (round > 0) await server.start();
    for (const entry of cases) api.get(entry.name)!.push(...(await sampleRuns(() => entry.api(server))));
    peakMb = Math.max(peakMb, memoryOf(server.pid!).peakMb);
    await server.stop();
    const warehouse = new ChdbWarehouse(warehouseDir);
    for (const entry of cases) raw.get(entry.name)!.push(...(await sampleRuns(() => entry.raw(warehouse))));
    await warehouse.close();
  }
  const timings = new Map(
    cases.map((entry) => [entry.name, { api: summarize(api.get(entry.name)!), raw: summarize(raw.get(entry.name)!) }]),
  );
  return { timings, peakMb };
}
