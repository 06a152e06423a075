import type { ChdbWarehouse } from '../src/storage/warehouse/chdb-warehouse.js';
import type { TallyServer } from '../test/support/tally.js';
import { openRawWarehouse } from './loaded-server.js';
import { memoryOf } from './memory.js';

export interface Timing {
  median: number;
  p95: number;
}

/**
 * Runs `work` `runs` times once warm and returns each run's milliseconds. Warm means at least five
 * runs and two seconds of them (at most twenty): a fresh server's JIT and ClickHouse's caches
 * need more than a couple of quick queries to reach their steady state.
 */
async function sampleRuns(work: () => Promise<unknown>, runs = 10): Promise<number[]> {
  const warmingStarted = performance.now();
  for (let warmUp = 0; warmUp < 20 && (warmUp < 5 || performance.now() - warmingStarted < 2000); warmUp++) await work();
  const samples: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** The median and p95 of some milliseconds. */
export function summarize(samples: readonly number[]): Timing {
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
 * Times every case through the server and, the server stopped (chDB lets one process hold a data
 * directory), as raw SQL on the same warehouse, in rounds that alternate which side goes first;
 * each side's figures come from all its rounds' runs, so neither one process's luck with caches
 * and the scheduler nor the machine drifting over minutes decides a ratio. Expects the server
 * running and leaves it stopped; returns the timings and the server's peak RSS.
 */
export async function timeApiAgainstRaw(
  server: TallyServer,
  cases: readonly ApiRawCase[],
  rounds = 4,
): Promise<{ timings: Map<string, ApiRawTiming>; peakMb: number }> {
  const api = new Map(cases.map((entry) => [entry.name, [] as number[]]));
  const raw = new Map(cases.map((entry) => [entry.name, [] as number[]]));
  let peakMb = 0;
  let serverRunning = true;
  const timeApi = async () => {
    if (!serverRunning) await server.start();
    for (const entry of cases) api.get(entry.name)!.push(...(await sampleRuns(() => entry.api(server))));
    peakMb = Math.max(peakMb, memoryOf(server.pid!).peakMb);
    await server.stop();
    serverRunning = false;
  };
  const timeRaw = async () => {
    if (serverRunning) await server.stop();
    serverRunning = false;
    const warehouse = openRawWarehouse(server.dataDir);
    for (const entry of cases) raw.get(entry.name)!.push(...(await sampleRuns(() => entry.raw(warehouse))));
    await warehouse.close();
  };
  for (let round = 0; round < rounds; round++) {
    const sides = round % 2 === 0 ? [timeApi, timeRaw] : [timeRaw, timeApi];
    for (const side of sides) await side();
  }
  const timings = new Map(cases.map((entry) => [entry.name, { api: summarize(api.get(entry.name)!), raw: summarize(raw.get(entry.name)!) }]));
  return { timings, peakMb };
}
