import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CAPTURE_LOG_DIR } from '../stores.js';
import { SQLITE_FILE } from '../storage/catalog/catalog.js';
import { DataDirLock, LOCK_FILE } from '../storage/data-dir-lock.js';
import { ChdbWarehouse } from '../storage/warehouse/chdb-warehouse.js';
import { WAREHOUSE_DIRECTORY } from '../storage/warehouse/open.js';
import { BACKUP_PARTS, BackupError, checkRestoreTarget, readBackup, type BackupManifest } from './backup-format.js';

/**
 * Fills the empty data directory `dataDir` from the backup in `directory` (`tally restore`), and
 * checks the restored catalog and warehouse hold the persons and events the manifest counted.
 * Nothing is changed when the backup is not one or the data directory is not empty; when the
 * restore fails later, what it wrote is removed again.
 */
export async function restoreBackup(directory: string, dataDir: string): Promise<BackupManifest> {
  const manifest = readBackup(directory);
  checkRestoreTarget(dataDir);
  const created = !fs.existsSync(dataDir);
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = DataDirLock.acquire(dataDir);
  try {
    copyFileSynced(path.join(directory, BACKUP_PARTS.catalog), path.join(dataDir, SQLITE_FILE));
    const log = path.join(dataDir, CAPTURE_LOG_DIR);
    fs.mkdirSync(log);
    for (const name of fs.readdirSync(path.join(directory, BACKUP_PARTS.captureLog))) {
      copyFileSynced(path.join(directory, BACKUP_PARTS.captureLog, name), path.join(log, name));
    }
    syncPath(log);
    const events = await restoreWarehouse(path.join(dataDir, WAREHOUSE_DIRECTORY), path.join(directory, BACKUP_PARTS.warehouse));
    const persons = countPersons(path.join(dataDir, SQLITE_FILE));
    if (events !== manifest.warehouse.events || persons !== manifest.catalog.persons) {
      throw new BackupError(
        `The restored stores do not hold what the backup counted: ${events} events (${manifest.warehouse.events} backed up), ` +
          `${persons} persons (${manifest.catalog.persons} backed up)`,
      );
    }
    syncPath(dataDir);
    return manifest;
  } catch (error) {
    // The directory was empty: everything in it but the lock is this restore's, unfinished.
    for (const name of fs.readdirSync(dataDir)) {
      if (name !== LOCK_FILE) fs.rmSync(path.join(dataDir, name), { recursive: true, force: true });
    }
    lock.release();
    if (created) fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  } finally {
    lock.release();
  }
}

/** Restores the warehouse and counts its events. */
async function restoreWarehouse(warehouseDirectory: string, backupDirectory: string): Promise<number> {
  const warehouse = new ChdbWarehouse(warehouseDirectory);
  try {
    await warehouse.restoreFrom(backupDirectory);
    const [row] = await warehouse.query<{ events: string }>('SELECT count() AS events FROM events');
    return Number(row?.events);
  } finally {
    await warehouse.close();
  }
}

function countPersons(file: string): number {
  const database = new Database(file, { readonly: true });
  try {
    return Number(database.prepare('SELECT count(*) FROM persons').pluck().get());
  } finally {
    database.close();
  }
}

function copyFileSynced(from: string, to: string): void {
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
  syncPath(to);
}

function syncPath(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
