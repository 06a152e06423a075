import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { IngestionConsumer } from '../capture/ingestion-consumer.js';
import type { FileCaptureLog } from '../capture/spool/file-capture-log.js';
import { CoordinatedWork, type ProcessCoordination } from '../storage/catalog/process-coordination.js';
import type { ChdbWarehouse } from '../storage/warehouse/chdb-warehouse.js';
import type { OutboxRelay } from '../storage/warehouse/outbox.js';
import { BACKUP_FORMAT, BACKUP_PARTS, BACKUP_VERSION, checkBackupDirectory, MANIFEST_FILE, type BackupManifest } from './backup-format.js';

/** The embedded stores as a backup copies them, and what it pauses meanwhile. */
export interface BackupSources {
  dataDir: string;
  /** Copies the catalog to a file (SQLite's online backup). */
  backupCatalog: (file: string) => Promise<void>;
  /** The warehouse itself, not the reads' view of it (which waits for ingestion). */
  warehouse: ChdbWarehouse;
  log: FileCaptureLog;
  ingestion: IngestionConsumer;
  relay: OutboxRelay;
  coordination: ProcessCoordination;
}

/** A backup is being written already; one runs at a time. */
export class BackupInProgressError extends Error {
  constructor() {
    super('A backup is being written already; try again once it is done.');
  }
}

/**
 * Writes consistent backups of the embedded stores while they serve (`tally backup`).
 *
 * The three parts must agree. The copy is taken with ingestion paused between two passes
 * (`IngestionConsumer.whilePaused`): then the catalog and the warehouse hold exactly what the
 * log's removed entries held, and the log holds every entry acknowledged and not processed.
 * Captures go on being acknowledged into the log meanwhile (those acknowledged before the copy
 * of the log are in the backup, later ones are not); reads wait for the passes after the pause.
 * The scheduled jobs are held off too (an event deletion changes both stores).
 *
 * Person writes of the API may still commit during the pause, and their replica rows reach the
 * warehouse through the outbox. So the warehouse is copied first and the catalog after it, with
 * the outbox kept unpruned from before the one to after the other: every replica row the
 * warehouse copy holds comes from an outbox row the catalog copy holds or one applied earlier,
 * and the restored server applies the catalog copy's outbox again (the same versions), so the
 * replicas come out as the catalog says.
 */
export class StoreBackup {
  private running = false;

  constructor(private readonly sources: BackupSources) {}

  /** Writes a backup into `directory` (absolute; new or empty) and returns its manifest. */
  async write(directory: string): Promise<BackupManifest> {
    const { dataDir, coordination, ingestion } = this.sources;
    checkBackupDirectory(directory, dataDir);
    if (this.running) throw new BackupInProgressError();
    this.running = true;
    const created = !fs.existsSync(directory);
    try {
      fs.mkdirSync(directory, { recursive: true });
      const copied = await coordination.exclusively(CoordinatedWork.Jobs, () => ingestion.whilePaused(() => this.copyParts(directory)));
      const catalogFile = path.join(directory, BACKUP_PARTS.catalog);
      const persons = settleCatalogCopy(catalogFile);
      const manifest: BackupManifest = {
        format: BACKUP_FORMAT,
        version: BACKUP_VERSION,
        created_at: copied.pausedAt,
        catalog: { file: BACKUP_PARTS.catalog, bytes: fs.statSync(catalogFile).size, persons },
        warehouse: { directory: BACKUP_PARTS.warehouse, events: copied.events },
        capture_log: { directory: BACKUP_PARTS.captureLog, entries: copied.log.entries, events: copied.log.events },
      };
      writeManifest(directory, manifest);
      return manifest;
    } catch (error) {
      // The directory was new or empty: what is in it now is this backup's, unfinished.
      removeContents(directory, created);
      throw error;
    } finally {
      this.running = false;
    }
  }

  /** The copies, taken while ingestion is paused; see the class comment for their order. */
  private async copyParts(directory: string) {
    const { backupCatalog, warehouse, log, relay } = this.sources;
    const pausedAt = new Date().toISOString();
    const releasePruning = relay.holdPruning();
    try {
      const [counted] = await warehouse.query<{ events: string }>('SELECT count() AS events FROM events');
      await warehouse.backupTo(path.join(directory, BACKUP_PARTS.warehouse));
      await backupCatalog(path.join(directory, BACKUP_PARTS.catalog));
      const copied = await log.copyTo(path.join(directory, BACKUP_PARTS.captureLog));
      return { pausedAt, events: Number(counted?.events), log: copied };
    } finally {
      releasePruning();
    }
  }
}

/**
 * Makes the catalog copy a file on its own (no WAL beside it) and counts its persons, for the
 * manifest: a restore checks the count.
 */
function settleCatalogCopy(file: string): number {
  const database = new Database(file);
  try {
    database.pragma('journal_mode = DELETE');
    return Number(database.prepare('SELECT count(*) AS persons FROM persons').pluck().get());
  } finally {
    database.close();
  }
}

/** Writes the manifest last and atomically, and makes the whole backup durable. */
function writeManifest(directory: string, manifest: BackupManifest): void {
  const temporary = path.join(directory, `${MANIFEST_FILE}.tmp`);
  const fd = fs.openSync(temporary, 'wx');
  try {
    fs.writeSync(fd, `${JSON.stringify(manifest, null, 2)}\n`);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncTree(path.join(directory, BACKUP_PARTS.warehouse));
  syncFile(path.join(directory, BACKUP_PARTS.catalog));
  fs.renameSync(temporary, path.join(directory, MANIFEST_FILE));
  syncFile(directory);
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Syncs every file and directory under `directory`: what ClickHouse's BACKUP wrote. */
function syncTree(directory: string): void {
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) syncTree(full);
    else if (entry.isFile()) syncFile(full);
  }
  syncFile(directory);
}

function removeContents(directory: string, removeDirectory: boolean): void {
  try {
    if (removeDirectory) fs.rmSync(directory, { recursive: true, force: true });
    else for (const name of fs.readdirSync(directory)) fs.rmSync(path.join(directory, name), { recursive: true, force: true });
  } catch {
    // Nothing more to do: the backup has no manifest, so nothing takes it for one.
  }
}
