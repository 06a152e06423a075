import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { ChdbWarehouse } from '../src/storage/warehouse/chdb-warehouse.js';
import { WAREHOUSE_DIRECTORY } from '../src/storage/warehouse/open.js';
import { TallyServer } from '../test/support/tally.js';
import type { GeneratedEvent } from './generator.js';
import { loadThroughCapture } from './load.js';
import { memoryOf } from './memory.js';

/** What a kept data directory remembers about the load that filled it. */
interface LoadRecord {
  suite: string;
  events: number;
  seconds: number;
  loadPeakMb: number;
  projectToken: string;
  personalApiKey: string;
  loadedAt: string;
}

export interface LoadedServer<Fresh> {
  server: TallyServer;
  /** Seconds the capture load took (when reused: the recorded load's). */
  seconds: number;
  /** Peak RSS of the server during the load, measured when it ran. */
  loadPeakMb: number;
  /** When the data was loaded, if it was loaded by an earlier run. */
  reusedFrom: string | null;
  /** What `whileFresh` gave when the data was loaded in this run; null for kept data, which can only be settled. */
  fresh: Fresh | null;
}

const RECORD_FILE = 'bench-load.json';

/**
 * Starts a server holding the suite's data, settled: loaded now through capture, or — with a kept
 * data directory that an earlier run of the same suite and size filled — reused, because a
 * 10M-event load takes most of an hour and the queries can be timed many times over it. A load
 * made now is first handed to `whileFresh` with the server that took it still running, for what
 * users meet right after a load; it may stop the server. Then the server is stopped, the load's
 * merges finished (`settle`) and the server started again.
 */
export async function loadedServer<Fresh>(
  suite: string,
  events: number,
  dataDir: string | undefined,
  generate: () => Iterable<GeneratedEvent>,
  label: string,
  whileFresh: (server: TallyServer) => Promise<Fresh>,
): Promise<LoadedServer<Fresh>> {
  const recordPath = dataDir ? path.join(dataDir, RECORD_FILE) : null;
  const record = recordPath && fs.existsSync(recordPath) ? (JSON.parse(fs.readFileSync(recordPath, 'utf8')) as LoadRecord) : null;
  if (record && (record.suite !== suite || record.events !== events)) {
    throw new Error(`${dataDir} holds the ${record.suite} suite's ${record.events} events; use another --data-dir`);
  }
  const server = new TallyServer(dataDir, { LOG_LEVEL: 'error' });
  if (record) {
    await settle(server.dataDir);
    await server.start();
    server.projectToken = record.projectToken;
    server.personalApiKey = record.personalApiKey;
    console.error(`reusing the data loaded ${record.loadedAt}: settled condition only, the fresh one needs a load in this run`);
    return { server, seconds: record.seconds, loadPeakMb: record.loadPeakMb, reusedFrom: record.loadedAt, fresh: null };
  }
  await server.start();
  const seconds = await loadThroughCapture(server, generate(), events, label);
  const loadPeakMb = Math.round(memoryOf(server.pid!).peakMb);
  const fresh = await whileFresh(server);
  await server.stop();
  await settle(server.dataDir);
  await server.start();
  if (recordPath) {
    const kept: LoadRecord = {
      suite,
      events,
      seconds,
      loadPeakMb,
      projectToken: server.projectToken,
      personalApiKey: server.personalApiKey,
      loadedAt: new Date().toISOString(),
    };
    fs.writeFileSync(recordPath, JSON.stringify(kept, null, 2));
  }
  return { server, seconds, loadPeakMb, reusedFrom: null, fresh };
}

/** The warehouse of a stopped server's data directory, opened directly. */
export function openRawWarehouse(dataDir: string): ChdbWarehouse {
  return new ChdbWarehouse(path.join(loadConfig({ TALLY_DATA_DIR: dataDir }).dataDir, WAREHOUSE_DIRECTORY));
}

/**
 * The raw side of a timed comparison: the stopped server's warehouse read as PostHog's events
 * table, without what Tally derives from it. The hand-written SQL parses event properties' JSON
 * instead of reading Tally's property columns, and this session turns projections off, so Tally's
 * hourly counts serve Tally's queries only: the raw side stands for ClickHouse SQL on PostHog's
 * schema, which has neither.
 */
export async function openHandWrittenSide(dataDir: string): Promise<ChdbWarehouse> {
  const warehouse = openRawWarehouse(dataDir);
  await warehouse.command('SET optimize_use_projections = 0');
  return warehouse;
}

/**
 * Lets ClickHouse finish the background merges a load leaves behind, with the server stopped, so
 * every round of the API and the raw SQL is timed on the same parts, with no merges competing
 * for the two cores.
 */
async function settle(dataDir: string, timeoutMs = 15 * 60_000): Promise<void> {
  const warehouse = openRawWarehouse(dataDir);
  const deadline = Date.now() + timeoutMs;
  let quietPolls = 0;
  while (quietPolls < 3 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const [row] = await warehouse.query<{ merges: string }>('SELECT count() AS merges FROM system.merges');
    quietPolls = Number(row?.merges ?? 0) === 0 ? quietPolls + 1 : 0;
  }
  await warehouse.close();
}
