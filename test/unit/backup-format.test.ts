import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  BACKUP_PARTS,
  BackupError,
  checkBackupDirectory,
  checkRestoreTarget,
  isWithin,
  MANIFEST_FILE,
  parseManifest,
  readBackup,
  type BackupManifest,
} from '../../src/backup/backup-format.js';
import { QueueProgress } from '../../src/storage/catalog/queue-progress.js';
import { localUrl, publishServer, readServerFile, SERVER_FILE } from '../../src/storage/server-file.js';

const MANIFEST: BackupManifest = {
  format: 'tally-backup',
  version: 1,
  created_at: '2026-11-27T10:00:00.000Z',
  catalog: { file: 'catalog.sqlite', bytes: 4096, persons: 3 },
  warehouse: { directory: 'warehouse', events: 12 },
  capture_log: { directory: 'capture-log', entries: 1, events: 2 },
};

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-backup-format-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

function directory(name: string, files: Record<string, string> = {}): string {
  const made = path.join(root, name);
  fs.mkdirSync(made, { recursive: true });
  for (const [file, contents] of Object.entries(files)) fs.writeFileSync(path.join(made, file), contents);
  return made;
}

function refusal(run: () => unknown): { message: string; attr: string | null } {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof BackupError, String(error));
    return { message: error.message, attr: error.attr };
  }
  assert.fail('not refused');
}

describe('backup manifest', () => {
  test('a complete manifest parses as it was written', () => {
    assert.deepEqual(parseManifest(JSON.stringify(MANIFEST)), MANIFEST);
  });

  test('anything else is refused, saying what is wrong', () => {
    assert.match(refusal(() => parseManifest('{')).message, /is not JSON/);
    assert.match(refusal(() => parseManifest('[]')).message, /is not a JSON object/);
    assert.match(refusal(() => parseManifest('{"format":"other","version":1}')).message, /not a Tally backup manifest/);
    assert.match(refusal(() => parseManifest('{"format":"tally-backup","version":2}')).message, /format version 2; this Tally reads version 1/);
    const broken = {
      ...MANIFEST,
      created_at: 'yesterday',
      catalog: { ...MANIFEST.catalog, persons: -1 },
      capture_log: { ...MANIFEST.capture_log, directory: '../etc' },
    };
    assert.equal(refusal(() => parseManifest(JSON.stringify(broken))).message, `${MANIFEST_FILE} has invalid fields: created_at, catalog, capture_log`);
    const { warehouse: _, ...noWarehouse } = MANIFEST;
    assert.match(refusal(() => parseManifest(JSON.stringify(noWarehouse))).message, /invalid fields: warehouse/);
  });

  test('a backup is a directory with the manifest and every part', () => {
    assert.match(refusal(() => readBackup('relative')).message, /must be an absolute path/);
    assert.match(refusal(() => readBackup(path.join(root, 'absent'))).message, /does not exist/);
    const file = path.join(directory('holder', { 'a-file': 'x' }), 'a-file');
    assert.match(refusal(() => readBackup(file)).message, /is not a directory/);
    assert.match(refusal(() => readBackup(directory('plain', { 'notes.txt': 'x' }))).message, /is not a Tally backup: it has no tally-backup\.json/);
    const partial = directory('partial', { [MANIFEST_FILE]: JSON.stringify(MANIFEST), [BACKUP_PARTS.catalog]: '' });
    assert.match(refusal(() => readBackup(partial)).message, /is incomplete: warehouse, capture-log missing/);
    fs.mkdirSync(path.join(partial, BACKUP_PARTS.warehouse));
    fs.mkdirSync(path.join(partial, BACKUP_PARTS.captureLog));
    assert.deepEqual(readBackup(partial), MANIFEST);
  });
});

describe('where a backup goes and what a restore fills', () => {
  const dataDir = directory('data', { 'catalog.sqlite': '' });

  test('a backup goes into a new or empty directory, absolute, outside the data directory', () => {
    checkBackupDirectory(path.join(root, 'new', 'deeper'), dataDir);
    checkBackupDirectory(directory('empty'), dataDir);
    assert.deepEqual(
      refusal(() => checkBackupDirectory('backups/today', dataDir)),
      {
        message: 'The backup directory must be an absolute path, got "backups/today"',
        attr: 'path',
      },
    );
    assert.match(refusal(() => checkBackupDirectory(directory('full', { keep: 'x' }), dataDir)).message, /is not empty/);
    assert.match(refusal(() => checkBackupDirectory(path.join(root, 'full', 'keep'), dataDir)).message, /is not a directory/);
    assert.match(refusal(() => checkBackupDirectory(dataDir, dataDir)).message, /inside the data directory/);
    assert.match(refusal(() => checkBackupDirectory(path.join(dataDir, 'warehouse', 'b'), dataDir)).message, /inside the data directory/);
    // A sibling whose name starts like the data directory's is outside it.
    checkBackupDirectory(`${dataDir}-backup`, dataDir);
  });

  test('a restore fills a data directory that is empty or does not exist', () => {
    checkRestoreTarget(path.join(root, 'fresh'));
    checkRestoreTarget(directory('empty-data'));
    assert.match(refusal(() => checkRestoreTarget(dataDir)).message, /is not empty: restore fills an empty one/);
  });

  test('isWithin compares paths, not prefixes', () => {
    assert.equal(isWithin('/a/b', '/a/b'), true);
    assert.equal(isWithin('/a/b/c', '/a/b'), true);
    assert.equal(isWithin('/a/b/../c', '/a/b'), false);
    assert.equal(isWithin('/a/bc', '/a/b'), false);
    assert.equal(isWithin('/a/b/..c', '/a/b'), true);
  });
});

describe('the server file', () => {
  test('a server listening on every interface is reached on loopback', () => {
    assert.equal(localUrl('0.0.0.0', 8000), 'http://127.0.0.1:8000');
    assert.equal(localUrl('::', 8000), 'http://[::1]:8000');
    assert.equal(localUrl('127.0.0.1', 1234), 'http://127.0.0.1:1234');
    assert.equal(localUrl('::1', 1234), 'http://[::1]:1234');
    assert.equal(localUrl('10.1.2.3', 80), 'http://10.1.2.3:80');
  });

  test('is written for the owner alone, read back, and removed only by its writer', () => {
    const dataDir = directory('published');
    assert.equal(readServerFile(dataDir), null);
    const remove = publishServer(dataDir, { url: 'http://127.0.0.1:1', token: 't' });
    assert.deepEqual(readServerFile(dataDir), { pid: process.pid, url: 'http://127.0.0.1:1', token: 't' });
    assert.equal(fs.statSync(path.join(dataDir, SERVER_FILE)).mode & 0o777, 0o600);
    fs.writeFileSync(path.join(dataDir, SERVER_FILE), JSON.stringify({ pid: process.pid + 1, url: 'http://x', token: 'u' }));
    remove();
    assert.equal(readServerFile(dataDir)?.token, 'u', "another server's file stays");
    fs.writeFileSync(path.join(dataDir, SERVER_FILE), '{"pid":"1"}');
    assert.equal(readServerFile(dataDir), null);
  });
});

describe('outbox pruning held for a backup', () => {
  test('carried rows are not deleted while a hold lasts, and are afterwards', async () => {
    const progress = new QueueProgress(2);
    const deleted: number[] = [];
    const queue = { deleteThrough: async (id: number) => void deleted.push(id) };
    progress.markCarried(5);
    const release = progress.holdPruning();
    const second = progress.holdPruning();
    assert.equal(progress.wantsPruning, false);
    await progress.prune(queue);
    release();
    release();
    await progress.prune(queue);
    assert.deepEqual(deleted, [], 'one hold is left');
    second();
    assert.equal(progress.wantsPruning, true);
    await progress.prune(queue);
    assert.deepEqual(deleted, [5]);
  });
});
