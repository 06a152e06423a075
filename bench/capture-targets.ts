import fs from 'node:fs';
import { loadConfig } from '../src/config.js';
import { openStores } from '../src/stores.js';
import { createPostgresDatabase } from '../test/support/catalogs.js';
import { spawnChdbHttpServer } from '../test/support/clickhouse-http/spawned-server.js';
import { TallyServer, tempDataDir } from '../test/support/tally.js';
import { cpuOf, memoryOf, sameNamedThreadsCpuSeconds, statCpuSeconds } from './memory.js';

/** The fixed credentials of a shared deployment: every process serves the same project. */
const PROJECT_TOKEN = 'phc_benchSharedStoresToken000000000';
const PERSONAL_API_KEY = 'phx_benchSharedStoresKey0000000000000000000000';

/**
 * Where a capture load goes: one Tally process on embedded stores, or several sharing
 * PostgreSQL and the ClickHouse test server.
 */
export interface CaptureTarget {
  servers: TallyServer[];
  description: string;
  /** CPU seconds so far of every process doing the work, Tally's and the stores', by name. */
  cpu(): Record<string, number>;
  /** Peak RSS of the Tally processes, MB, the largest. */
  peakMb(): number;
  /** Stops the servers and counts the stored events. */
  stopAndCount(): Promise<number>;
  dispose(): Promise<void>;
}

/** One Tally process on a fresh data directory (SQLite and chDB). */
export async function embeddedTarget(): Promise<CaptureTarget> {
  const server = await TallyServer.start({ LOG_LEVEL: 'error' });
  return {
    servers: [server],
    description: 'one process, embedded stores',
    cpu: () => {
      const { processSeconds, mainThreadSeconds } = cpuOf(server.pid!);
      const nodeThreadsSeconds = sameNamedThreadsCpuSeconds(server.pid!);
      return {
        tally: processSeconds,
        'tally main thread': mainThreadSeconds,
        "tally's other Node threads (request decoding, file I/O, V8)": nodeThreadsSeconds,
        "tally's other threads (chDB's)": processSeconds - mainThreadSeconds - nodeThreadsSeconds,
      };
    },
    peakMb: () => memoryOf(server.pid!).peakMb,
    async stopAndCount() {
      await server.stop();
      const stores = await openStores(loadConfig({ TALLY_DATA_DIR: server.dataDir, LOG_LEVEL: 'error' }));
      const [stored] = await stores.context.warehouse.query<{ n: string }>('SELECT count() AS n FROM events');
      await stores.close();
      return Number(stored!.n);
    },
    dispose: () => server.dispose(),
  };
}

/**
 * `processes` Tally processes on a fresh PostgreSQL database (on the server of `postgresAdminUrl`)
 * and a ClickHouse test server of their own: the scale-out deployment, on one machine.
 */
export async function sharedTarget(postgresAdminUrl: string, processes: number): Promise<CaptureTarget> {
  const database = await createPostgresDatabase(postgresAdminUrl);
  const clickhouseDirectory = tempDataDir('tally-bench-clickhouse-');
  const clickhouse = await spawnChdbHttpServer(clickhouseDirectory);
  const env = {
    LOG_LEVEL: 'error',
    DATABASE_URL: database.url,
    CLICKHOUSE_URL: clickhouse.url,
    TALLY_PROJECT_TOKEN: PROJECT_TOKEN,
    TALLY_PERSONAL_API_KEY: PERSONAL_API_KEY,
  };
  const servers = Array.from({ length: processes }, () => new TallyServer(tempDataDir('tally-bench-'), { ...env }));
  for (const server of servers) {
    await server.start();
    server.projectToken = PROJECT_TOKEN;
    server.personalApiKey = PERSONAL_API_KEY;
  }
  const tallyCpu = (index: number) => cpuOf(servers[index]!.pid!).processSeconds;
  return {
    servers,
    description: `${processes} process${processes > 1 ? 'es' : ''}, PostgreSQL + the ClickHouse test server`,
    cpu: () => ({
      ...Object.fromEntries(servers.map((_, index) => [`tally ${index + 1}`, tallyCpu(index)])),
      'ClickHouse test server': cpuOf(clickhouse.pid).processSeconds,
      PostgreSQL: postgresCpuSeconds(),
    }),
    peakMb: () => Math.max(...servers.map((server) => memoryOf(server.pid!).peakMb)),
    async stopAndCount() {
      const answer = await servers[0]!.post('/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: 'select count() from events' } });
      if (answer.status !== 200) throw new Error(`counting the events answered ${answer.status}: ${answer.text}`);
      for (const server of servers) await server.stop();
      return Number(answer.body.results[0][0]);
    },
    async dispose() {
      for (const server of servers) await server.dispose();
      await clickhouse.stop();
      fs.rmSync(clickhouseDirectory, { recursive: true, force: true });
      await database.drop();
    },
  };
}

/** CPU seconds of every PostgreSQL process on the machine, the exited backends' included in their parent's. */
function postgresCpuSeconds(): number {
  let seconds = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
      // The waited-for children too: backends that ended count in their parent.
      seconds += statCpuSeconds(`/proc/${entry}/stat`, true);
    } catch {
      // The process ended between the listing and the reads.
    }
  }
  return seconds;
}
