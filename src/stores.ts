import path from 'node:path';
import type { Config } from './config.js';
import { usesEmbeddedStorage } from './config.js';
import { bootstrapIfEmpty, type BootstrapResult } from './bootstrap.js';
import { createContext, type AppContext } from './context.js';
import { openCatalog } from './storage/catalog/catalog.js';
import { DataDirLock } from './storage/data-dir-lock.js';
import { openWarehouse } from './storage/warehouse/open.js';
import type { Warehouse } from './storage/warehouse/warehouse.js';
import { CatalogCaptureLog, type CaptureLog } from './capture/capture-log.js';
import { FileCaptureLog } from './capture/spool/file-capture-log.js';
import type { Catalog } from './storage/catalog/catalog.js';
import { CoordinatedWork, PostgresCoordination, SoleProcess, type ProcessCoordination } from './storage/catalog/process-coordination.js';

/** The embedded capture log's directory, inside the data directory. */
export const CAPTURE_LOG_DIR = 'capture-log';

/**
 * How long closing waits for ingestion to process what the log holds. Whatever is left stays in
 * the log for the next start; a stop must not wait on a store that does not answer.
 */
const FINAL_PASS_MS = 15_000;

export interface OpenStores {
  context: AppContext;
  bootstrap: BootstrapResult | null;
  close(): Promise<void>;
}

/**
 * Takes the data-directory lock (when a store is embedded), opens and migrates both stores,
 * and bootstraps an empty catalog, one process at a time when several share the stores; then
 * campaigns to consume the capture log. Everything that touches data goes through here.
 */
export async function openStores(config: Config): Promise<OpenStores> {
  const embedded = usesEmbeddedStorage(config);
  const lock = embedded ? DataDirLock.acquire(config.dataDir) : null;
  const coordination: ProcessCoordination = embedded ? new SoleProcess() : new PostgresCoordination(config.databaseUrl!);
  try {
    const { context, captureLog, bootstrap } = await coordination.exclusively(CoordinatedWork.Startup, () => openAndPrepare(config, coordination));
    const { catalog, warehouse } = context;
    try {
      await context.ingestion.start();
      // Process whatever was acknowledged before a crash or stop (or, in a process that does not
      // consume the log, wait for the one that does). What cannot be processed now stays in the
      // log, and the consumer retries it: start-up goes on either way.
      await context.ingestion.catchUp();
      await context.relay.pruneApplied();
    } catch (error) {
      await context.ingestion.close(0);
      await captureLog.close();
      await warehouse.close();
      await catalog.close();
      throw error;
    }
    return {
      context,
      bootstrap,
      async close() {
        await context.capture.close();
        if (!(await context.ingestion.close(FINAL_PASS_MS))) {
          // A pass still runs on the stores: closing them under it could break what it writes,
          // and giving up the lead would let another process consume the same entries.
          // Everything it has not finished is in the log, processed at the next start.
          context.logger.error(`ingestion did not finish within ${FINAL_PASS_MS / 1000} s; the capture log keeps what is left for the next start`);
          lock?.release();
          return;
        }
        await context.relay.pruneApplied();
        await coordination.close();
        await captureLog.close();
        await warehouse.close();
        await catalog.close();
        lock?.release();
      },
    };
  } catch (error) {
    await coordination.close();
    lock?.release();
    throw error;
  }
}

/** Opens and migrates both stores and the capture log, wires the services, and bootstraps an empty catalog. */
async function openAndPrepare(
  config: Config,
  coordination: ProcessCoordination,
): Promise<{ context: AppContext; captureLog: CaptureLog; bootstrap: BootstrapResult | null }> {
  const catalog = await openCatalog(config);
  let warehouse: Warehouse;
  try {
    warehouse = await openWarehouse(config);
  } catch (error) {
    await catalog.close();
    throw error;
  }
  let captureLog: CaptureLog;
  try {
    captureLog = await openCaptureLog(config, catalog);
  } catch (error) {
    await warehouse.close();
    await catalog.close();
    throw error;
  }
  const context = createContext(config, catalog, warehouse, captureLog, coordination);
  try {
    return { context, captureLog, bootstrap: await bootstrapIfEmpty(context) };
  } catch (error) {
    await captureLog.close();
    await warehouse.close();
    await catalog.close();
    throw error;
  }
}

/** Where the data directory is used, the capture log is files there; with PostgreSQL, a catalog table. */
async function openCaptureLog(config: Config, catalog: Catalog): Promise<CaptureLog> {
  if (catalog.dialect === 'postgres') return new CatalogCaptureLog(catalog.db, catalog.dialect);
  return FileCaptureLog.open(path.join(config.dataDir, CAPTURE_LOG_DIR));
}
