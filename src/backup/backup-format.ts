import fs from 'node:fs';
import path from 'node:path';

/**
 * A backup is a directory: the catalog (`catalog.sqlite`), the warehouse as ClickHouse's BACKUP
 * wrote it (`warehouse/`), the capture log's entries not processed yet (`capture-log/`), and this
 * manifest, written last: a directory without it is not a backup (one cut short, say).
 */
export const MANIFEST_FILE = 'tally-backup.json';

export const BACKUP_FORMAT = 'tally-backup';
export const BACKUP_VERSION = 1;

export const BACKUP_PARTS = { catalog: 'catalog.sqlite', warehouse: 'warehouse', captureLog: 'capture-log' } as const;

/** What `tally-backup.json` holds: what was copied, with the counts a restore checks. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  /** When the stores were paused for the copy (ISO 8601, UTC). */
  created_at: string;
  catalog: { file: string; bytes: number; persons: number };
  warehouse: { directory: string; events: number };
  /** Entries acknowledged and not processed when the copy was taken: a restored server processes them. */
  capture_log: { directory: string; entries: number; events: number };
}

/** A backup or a restore refused or failed for a reason the operator can act on; `attr` names the field of the API. */
export class BackupError extends Error {
  constructor(
    message: string,
    readonly attr: string | null = null,
  ) {
    super(message);
  }
}

/** True when `inner` is `outer` or lies under it. */
export function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(path.resolve(outer), path.resolve(inner));
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** What is in `directory`: null when it does not exist; fails when it is something else than a directory. */
function entriesOf(directory: string, what: string): string[] | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new BackupError(`${what} ${directory} cannot be read: ${(error as Error).message}`, 'path');
  }
  if (!stat.isDirectory()) throw new BackupError(`${what} ${directory} is not a directory`, 'path');
  return fs.readdirSync(directory);
}

/**
 * Refuses a backup directory that is relative (a server's working directory is not the
 * caller's), inside the data directory, not a directory, or not empty: a backup never mixes with
 * other files, nor overwrites any.
 */
export function checkBackupDirectory(directory: string, dataDir: string): void {
  if (!path.isAbsolute(directory)) throw new BackupError(`The backup directory must be an absolute path, got "${directory}"`, 'path');
  if (isWithin(directory, dataDir)) {
    throw new BackupError(`The backup directory ${directory} is inside the data directory ${dataDir}: choose one outside it`, 'path');
  }
  const entries = entriesOf(directory, 'The backup directory');
  if (entries !== null && entries.length > 0) {
    throw new BackupError(`The backup directory ${directory} is not empty: a backup goes into a new or empty directory`, 'path');
  }
}

/** Refuses to restore into a data directory that holds anything: a restore never merges with other data. */
export function checkRestoreTarget(dataDir: string): void {
  const entries = entriesOf(dataDir, 'The data directory');
  if (entries !== null && entries.length > 0) {
    throw new BackupError(
      `The data directory ${dataDir} is not empty: restore fills an empty one (set TALLY_DATA_DIR to a new directory, or move this one away)`,
    );
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isPartName(value: unknown, expected: string): boolean {
  return value === expected;
}

/** The manifest in `text`, checked field by field; a BackupError says what is wrong. */
export function parseManifest(text: string): BackupManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new BackupError(`${MANIFEST_FILE} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BackupError(`${MANIFEST_FILE} is not a JSON object`);
  /** The manifest as read: every field still to be checked. */
  type Loose = { [key: string]: unknown } & { catalog?: Record<string, unknown>; warehouse?: Record<string, unknown>; capture_log?: Record<string, unknown> };
  const manifest = value as Loose;
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`${MANIFEST_FILE} is not a Tally backup manifest (format is not "${BACKUP_FORMAT}")`);
  if (manifest.version !== BACKUP_VERSION) {
    throw new BackupError(`The backup has format version ${JSON.stringify(manifest.version)}; this Tally reads version ${BACKUP_VERSION}`);
  }
  const problems: string[] = [];
  if (typeof manifest.created_at !== 'string' || Number.isNaN(Date.parse(manifest.created_at))) problems.push('created_at');
  const { catalog, warehouse, capture_log: captureLog } = manifest;
  if (!isPartName(catalog?.file, BACKUP_PARTS.catalog) || !isCount(catalog?.bytes) || !isCount(catalog?.persons)) problems.push('catalog');
  if (!isPartName(warehouse?.directory, BACKUP_PARTS.warehouse) || !isCount(warehouse?.events)) problems.push('warehouse');
  if (!isPartName(captureLog?.directory, BACKUP_PARTS.captureLog) || !isCount(captureLog?.entries) || !isCount(captureLog?.events)) {
    problems.push('capture_log');
  }
  if (problems.length > 0) throw new BackupError(`${MANIFEST_FILE} has invalid fields: ${problems.join(', ')}`);
  return manifest as unknown as BackupManifest;
}

/** The manifest of the backup in `directory`, once its parts are there; a BackupError says why it is not a backup. */
export function readBackup(directory: string): BackupManifest {
  if (!path.isAbsolute(directory)) throw new BackupError(`The backup directory must be an absolute path, got "${directory}"`);
  const entries = entriesOf(directory, 'The backup directory');
  if (entries === null) throw new BackupError(`The backup directory ${directory} does not exist`);
  if (!entries.includes(MANIFEST_FILE)) {
    throw new BackupError(`${directory} is not a Tally backup: it has no ${MANIFEST_FILE} (a backup that did not finish has none either)`);
  }
  const manifest = parseManifest(fs.readFileSync(path.join(directory, MANIFEST_FILE), 'utf8'));
  const missing = [
    { name: BACKUP_PARTS.catalog, file: true },
    { name: BACKUP_PARTS.warehouse, file: false },
    { name: BACKUP_PARTS.captureLog, file: false },
  ].filter(({ name, file }) => {
    const stat = fs.statSync(path.join(directory, name), { throwIfNoEntry: false });
    return !stat || (file ? !stat.isFile() : !stat.isDirectory());
  });
  if (missing.length > 0) throw new BackupError(`The backup in ${directory} is incomplete: ${missing.map(({ name }) => name).join(', ')} missing`);
  return manifest;
}
