import type { ChdbWarehouse } from '../src/storage/warehouse/chdb-warehouse.js';
import type { TallyServer } from '../test/support/tally.js';
import { openHandWrittenSide } from './loaded-server.js';
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

/** Every case's timings in one condition of the data, and what each side saw. */
export interface ConditionTimings {
  condition: 'fresh' | 'settled';
  timings: Map<string, ApiRawTiming>;
  note: string;
}

/** Both sides' runs of every case, gathered over rounds. */
class Samples {
  readonly api: Map<string, number[]>;
  readonly raw: Map<string, number[]>;

  constructor(private readonly cases: readonly ApiRawCase[]) {
    this.api = new Map(cases.map((entry) => [entry.name, []]));
    this.raw = new Map(cases.map((entry) => [entry.name, []]));
  }

  timings(): Map<string, ApiRawTiming> {
    return new Map(this.cases.map((entry) => [entry.name, { api: summarize(this.api.get(entry.name)!), raw: summarize(this.raw.get(entry.name)!) }]));
  }
}

/** The active parts of the warehouse's tables, which the queries read: how merged the data a side saw was. */
async function activeParts(warehouse: ChdbWarehouse): Promise<string> {
  const rows = await warehouse.query<{ table: string; parts: string }>(
    'SELECT table, count() AS parts FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table',
  );
  const total = rows.reduce((sum, row) => sum + Number(row.parts), 0);
  const events = rows.find((row) => row.table === 'events')?.parts ?? '0';
  return `${total} active parts (events: ${events})`;
}

/**
 * Times every case through the server and, the server stopped (chDB lets one process hold a data
 * directory), as raw SQL on the same warehouse, in rounds that alternate which side goes first;
 * each side's figures come from all its rounds' runs, so neither one process's luck with caches
 * and the scheduler nor the machine drifting over minutes decides a ratio. Expects the server
 * running on settled data (restarted after the load's merges) and leaves it stopped; returns the
 * timings and the server's peak RSS.
 */
export async function timeApiAgainstRaw(server: TallyServer, cases: readonly ApiRawCase[], rounds = 4): Promise<ConditionTimings & { peakMb: number }> {
  const samples = new Samples(cases);
  let peakMb = 0;
  let serverRunning = true;
  let parts = '';
  const timeApi = async () => {
    if (!serverRunning) await server.start();
    for (const entry of cases) samples.api.get(entry.name)!.push(...(await sampleRuns(() => entry.api(server))));
    peakMb = Math.max(peakMb, memoryOf(server.pid!).peakMb);
    await server.stop();
    serverRunning = false;
  };
  const timeRaw = async () => {
    if (serverRunning) await server.stop();
    serverRunning = false;
    const warehouse = await openHandWrittenSide(server.dataDir);
    parts ||= await activeParts(warehouse);
    for (const entry of cases) samples.raw.get(entry.name)!.push(...(await sampleRuns(() => entry.raw(warehouse))));
    await warehouse.close();
  };
  for (let round = 0; round < rounds; round++) {
    const sides = round % 2 === 0 ? [timeApi, timeRaw] : [timeRaw, timeApi];
    for (const side of sides) await side();
  }
  return { condition: 'settled', timings: samples.timings(), peakMb, note: `restarted after the load's merges; ${parts}` };
}

/** How long after every loaded event is queryable the fresh timing starts: users query a loaded server within seconds. */
const FRESH_DELAY_MS = 3000;

/**
 * Times every case as users meet the data right after a load: through the server that took it,
 * from a few seconds after every event is queryable, with no restart and ClickHouse free to go on
 * merging what the load wrote, for `rounds` rounds; then stops the server (a stop merges nothing)
 * and times the raw SQL on the directory as the server left it, with merges stopped as the raw
 * session's first statement. The raw side so reads the parts the server held at its stop: as
 * merged as those the API's last round read, or more, never less, and with no merge competing for
 * the cores, so the fresh ratio does not flatter Tally. Odd rounds take the cases in reverse
 * order, so no case always runs last, on the most merged data. Expects the server running just
 * after the load and leaves it stopped.
 */
export async function timeFresh(server: TallyServer, cases: readonly ApiRawCase[], rounds = 2): Promise<ConditionTimings> {
  const samples = new Samples(cases);
  const inOrder = (round: number) => (round % 2 === 0 ? cases : [...cases].reverse());
  // Every read waits for the acknowledged events to be processed, so this answer means all are queryable.
  await cases[0]!.api(server);
  const queryable = performance.now();
  await new Promise((resolve) => setTimeout(resolve, FRESH_DELAY_MS));
  for (let round = 0; round < rounds; round++) {
    for (const entry of inOrder(round)) samples.api.get(entry.name)!.push(...(await sampleRuns(() => entry.api(server))));
  }
  const apiEnded = (performance.now() - queryable) / 1000;
  await server.stop();
  const warehouse = await openHandWrittenSide(server.dataDir);
  // Holds for this session only: the next one opened on the directory merges again (measured).
  await warehouse.command('SYSTEM STOP MERGES');
  const parts = await activeParts(warehouse);
  for (let round = 0; round < rounds; round++) {
    for (const entry of inOrder(round)) samples.raw.get(entry.name)!.push(...(await sampleRuns(() => entry.raw(warehouse))));
  }
  await warehouse.close();
  const note = `API ${FRESH_DELAY_MS / 1000}–${Math.round(apiEnded)} s after the load was queryable, no restart, merges free; raw on the ${parts} left at its stop, merges held`;
  return { condition: 'fresh', timings: samples.timings(), note };
}
