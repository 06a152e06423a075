import { parentPort, workerData } from 'node:worker_threads';
import { DefinitionRecorder } from '../definitions/definition-recorder.js';
import { PersonRepository } from '../persons/person-repository.js';
import { connectCatalog, type CatalogOptions } from '../storage/catalog/catalog.js';
import { deleteQueueRows } from '../storage/catalog/queue-progress.js';
import type { BatchReply, BatchTask, BatchThreadTask } from './batch-thread.js';
import { GroupTypeRegistry } from './group-types.js';
import { IngestionBatch } from './ingestion-batch.js';

/** The capture batch thread (see `BatchThread`): batches one at a time, in the order given. */
const catalog = connectCatalog(workerData as CatalogOptions);
const groupTypes = new GroupTypeRegistry();
const persons = new PersonRepository();
const definitions = new DefinitionRecorder(catalog.db);

async function commit(task: BatchTask): Promise<BatchReply> {
  const batch = new IngestionBatch({ db: catalog.db, groupTypes, persons, definitions });
  try {
    await batch.process(task.entries);
    // Durable once the main thread syncs the commits, before it removes the entries from the log.
    await catalog.deferredSyncTransaction(catalog.db, async (trx) => {
      await batch.write(trx);
      if (task.pruneOutboxThrough !== null) await deleteQueueRows(trx, 'warehouse_outbox', task.pruneOutboxThrough);
    });
  } catch (error) {
    // The batch's group-type assignments were not written.
    groupTypes.forgetAll();
    throw error;
  }
  // After the commit: a batch that failed records nothing until it is processed again. A crash
  // before its entries leave the log records them again, which changes nothing.
  for (const request of batch.recordable) await definitions.record(request.teamId, request.events, request.receivedAt);
  return { id: task.id, rows: batch.rows.finish().data };
}

async function answer(task: BatchTask): Promise<void> {
  let reply: BatchReply;
  try {
    reply = await commit(task);
  } catch (error) {
    reply = { id: task.id, failure: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  // The rows' buffer is the writer's own (never Node's shared pool): it moves without a copy.
  parentPort!.postMessage(reply, 'rows' in reply ? [reply.rows.bytes.buffer as ArrayBuffer] : []);
}

parentPort!.on('message', (task: BatchThreadTask) => {
  if (task.kind === 'batch') void answer(task);
  else if (task.kind === 'forget-event') definitions.forgetEvent(task.teamId, task.name);
  // The thread ends once its connection is closed; a failure to close ends it all the same.
  else void catalog.close().catch(() => undefined).then(() => parentPort!.close());
});
