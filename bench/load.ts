import zlib from 'node:zlib';
import type { TallyServer } from '../test/support/tally.js';
import { BatchSender } from './batch-sender.js';
import type { GeneratedEvent } from './generator.js';
import { progressBar } from './progress.js';

const BATCH_SIZE = 100;

/**
 * Sends events through the real capture path as posthog-node does (gzip /batch of 100) from
 * `senders` concurrent clients; returns the seconds until every request was acknowledged.
 */
export async function loadThroughCapture(server: TallyServer, events: Iterable<GeneratedEvent>, total: number, label: string, senders = 4): Promise<number> {
  const bar = progressBar(label, total);
  const iterator = events[Symbol.iterator]();
  let sent = 0;
  const nextBody = (): Buffer | null => {
    const batch: GeneratedEvent[] = [];
    for (let result = iterator.next(); !result.done; result = iterator.next()) {
      batch.push(result.value);
      if (batch.length === BATCH_SIZE) break;
    }
    if (batch.length === 0) return null;
    return zlib.gzipSync(JSON.stringify({ api_key: server.projectToken, batch, sent_at: new Date().toISOString() }));
  };
  const batches = new BatchSender(server.url, senders);
  const started = performance.now();
  const sender = async () => {
    for (let body = nextBody(); body !== null; body = nextBody()) {
      await batches.send(body);
      sent = Math.min(total, sent + BATCH_SIZE);
      bar.update(sent);
    }
  };
  await Promise.all(Array.from({ length: senders }, sender));
  batches.close();
  bar.stop();
  return (performance.now() - started) / 1000;
}
