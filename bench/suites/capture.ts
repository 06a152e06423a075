import fs from 'node:fs';
import zlib from 'node:zlib';
import { EVENT_ROW_COLUMNS, EventRowBuffer, type EventRow } from '../../src/capture/event-row-buffer.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { personUuidFor } from '../../src/persons/person.js';
import { epochMsToMicros } from '../../src/util/iso-time.js';
import { tempDataDir } from '../../test/support/tally.js';
import { embeddedTarget, sharedTarget } from '../capture-targets.js';
import { BatchSender } from '../batch-sender.js';
import { generateEvents, type GeneratedEvent } from '../generator.js';
import { memoryOf } from '../memory.js';
import { progressBar } from '../progress.js';
import { summarize } from '../timing.js';
import type { Measurement } from '../report.js';
import type { SuiteOptions } from './suite.js';

const BATCH_SIZE = 100;
const SENDERS = 4;
const RAW_CHUNK = 100_000;

function rowOf(event: GeneratedEvent, now: number): EventRow {
  return {
    uuid: event.uuid,
    team_id: 1,
    event: event.event,
    distinct_id: event.distinct_id,
    properties: JSON.stringify(event.properties),
    timestamp: epochMsToMicros(Date.parse(event.timestamp)),
    created_at: now,
    elements_chain: '',
    person_id: personUuidFor(1, event.distinct_id),
    person_properties: '{}',
    person_created_at: now,
    person_mode: 'full',
    $group_0: '',
    $group_1: '',
    $group_2: '',
    $group_3: '',
    $group_4: '',
    $session_id: typeof event.properties.$session_id === 'string' ? event.properties.$session_id : '',
  };
}

/** The physical limit: the same rows bulk-inserted into a bare chDB warehouse. */
async function rawInsertRate(events: GeneratedEvent[]): Promise<number> {
  const directory = tempDataDir('tally-bench-raw-');
  const warehouse = new ChdbWarehouse(directory);
  try {
    await migrateWarehouse(warehouse);
    const now = epochMsToMicros(Date.now());
    const bar = progressBar('raw bulk insert', events.length);
    const started = performance.now();
    for (let index = 0; index < events.length; index += RAW_CHUNK) {
      const rows = new EventRowBuffer();
      for (const event of events.slice(index, index + RAW_CHUNK)) rows.add(rowOf(event, now));
      await warehouse.insertRowBinary('events', EVENT_ROW_COLUMNS, rows.encoded());
      bar.update(Math.min(events.length, index + RAW_CHUNK));
    }
    const seconds = (performance.now() - started) / 1000;
    bar.stop();
    return events.length / seconds;
  } finally {
    await warehouse.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * Capture throughput: posthog-node-shaped gzip /batch requests of 100 events, 4 concurrent
 * senders, 100k distinct ids, 10% identify events — end to end, against a raw bulk insert. With
 * `postgres`, through `processes` Tally processes sharing PostgreSQL and the ClickHouse test
 * server, the senders spread over them.
 */
export async function captureSuite(options: SuiteOptions): Promise<Measurement[]> {
  const generateBar = progressBar('generating events', options.events);
  const events: GeneratedEvent[] = [];
  for (const event of generateEvents({
    events: options.events,
    distinctIds: 100_000,
    days: 90,
    identifyShare: 0.1,
    seed: 42,
    end: new Date(),
  })) {
    events.push(event);
    if (events.length % 10_000 === 0) generateBar.update(events.length);
  }
  generateBar.update(events.length);
  generateBar.stop();

  const target = options.postgres ? await sharedTarget(options.postgres, options.processes) : await embeddedTarget();
  const { servers } = target;
  const startupRss = Math.max(...servers.map((server) => memoryOf(server.pid!).rssMb));
  const bodies: Buffer[] = [];
  for (let index = 0; index < events.length; index += BATCH_SIZE) {
    const batch = events.slice(index, index + BATCH_SIZE);
    bodies.push(zlib.gzipSync(JSON.stringify({ api_key: servers[0]!.projectToken, batch, sent_at: new Date().toISOString() })));
  }

  const cpuBefore = target.cpu();
  const loadBar = progressBar(`capture /batch (${SENDERS} senders, ${target.description})`, events.length);
  let next = 0;
  let sent = 0;
  const acknowledgements: number[] = [];
  // Each sender keeps to one process, so the senders spread evenly over them.
  const batchSenders = servers.map((server) => new BatchSender(server.url, SENDERS));
  const senderCpuBefore = process.cpuUsage();
  const started = performance.now();
  const sender = async (senderIndex: number) => {
    const batches = batchSenders[senderIndex % batchSenders.length]!;
    for (let index = next++; index < bodies.length; index = next++) {
      const requested = performance.now();
      await batches.send(bodies[index]!);
      acknowledgements.push(performance.now() - requested);
      sent += Math.min(BATCH_SIZE, events.length - index * BATCH_SIZE);
      loadBar.update(sent);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, (_, index) => sender(index)));
  for (const batches of batchSenders) batches.close();
  const senderCpu = process.cpuUsage(senderCpuBefore);
  // End to end means queryable: a warehouse read waits until every acknowledged event is there,
  // on any process.
  const queried = await servers[servers.length - 1]!.post('/api/projects/1/insights/trend/', { events: [{ id: '$pageview' }], date_from: '-1d' });
  if (queried.status !== 200) throw new Error(`trend query answered ${queried.status}`);
  const seconds = (performance.now() - started) / 1000;
  loadBar.stop();
  const peak = target.peakMb();
  const cpuAfter = target.cpu();
  const microsPerEvent = (seconds: number) => Math.round((seconds * 1e6) / events.length);
  const stored = await target.stopAndCount();
  await target.dispose();
  if (stored !== events.length) throw new Error(`stored ${stored} of ${events.length} events`);
  const cpuByProcess = Object.keys(cpuAfter).map((name) => ({ name, micros: microsPerEvent(cpuAfter[name]! - cpuBefore[name]!) }));

  const tallyRate = events.length / seconds;
  const acknowledged = summarize(acknowledgements);
  const meanAcknowledgement = acknowledgements.reduce((total, milliseconds) => total + milliseconds, 0) / acknowledgements.length;
  const rawRate = await rawInsertRate(events);
  return [
    {
      suite: 'capture',
      name: `${events.length} events, /batch of 100, 4 senders, ${target.description}`,
      unit: 'events/s',
      value: Math.round(tallyRate),
      raw: Math.round(rawRate),
      ratio: tallyRate / rawRate,
      note: `${seconds.toFixed(1)} s from the first request until every event is queryable; raw = bulk insert of the same rows`,
    },
    ...cpuByProcess.map(({ name, micros }) => ({
      suite: 'capture',
      name: `CPU per event: ${name}`,
      unit: 'µs',
      value: micros,
      note: name === 'tally' ? 'all threads; steadier than events/s on a shared VM: compare builds on this' : undefined,
    })),
    {
      suite: 'capture',
      name: 'load generator CPU per event',
      unit: 'µs',
      value: microsPerEvent((senderCpu.user + senderCpu.system) / 1e6),
      note: 'the four senders share the machine with the server',
    },
    {
      suite: 'capture',
      name: 'acknowledgement of a /batch request',
      unit: 'ms',
      value: acknowledged.median,
      p95: acknowledged.p95,
      note: `mean ${meanAcknowledgement.toFixed(1)} ms: with ${SENDERS} senders waiting for their answers, events/s is at most ${SENDERS * BATCH_SIZE} ÷ the mean`,
    },
    { suite: 'capture', name: 'server RSS after start-up (empty stores)', unit: 'MB', value: Math.round(startupRss) },
    { suite: 'capture', name: 'server peak RSS while loading (the largest process)', unit: 'MB', value: Math.round(peak) },
  ];
}
