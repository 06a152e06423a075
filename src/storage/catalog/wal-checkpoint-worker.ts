import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointRequest, CheckpointResult } from './wal-checkpointer.js';

/**
 * The catalog's WAL checkpoints, on a connection of their own. A PASSIVE checkpoint copies the
 * committed WAL frames no reader still needs into the database file and syncs it, without
 * blocking the writer on the main thread.
 */
const database = new Database(workerData.file as string, { fileMustExist: true });

parentPort!.on('message', (request: CheckpointRequest) => {
  if (request === 'close') {
    database.close();
    parentPort!.close();
    return;
  }
  let result: CheckpointResult;
  try {
    const [row] = database.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    result = { walFrames: row!.log, checkpointedFrames: row!.checkpointed };
  } catch (error) {
    result = { failure: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(result);
});
