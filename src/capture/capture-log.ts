import { AppendOrderedTable, holdAppendOrder } from '../storage/catalog/append-order.js';
import type { CatalogDb } from '../storage/catalog/catalog.js';
import type { CatalogDialect } from '../storage/catalog/dialect.js';
import { Mutex } from '../util/mutex.js';

/**
 * One accepted capture request, its events serialised: a JSON array of `LoggedEvent`, as UTF-8.
 * Bytes rather than a string because an entry waits a second or more between its acknowledgement
 * and its processing: a string would be copied by every young-generation collection meanwhile,
 * a buffer is not, and it is written to the log as it is.
 */
export interface CaptureLogEntry {
  teamId: number;
  /** Epoch milliseconds. */
  receivedAt: number;
  eventCount: number;
  events: Uint8Array;
  /** Where each event's properties lie in `events`, in bytes, when the decoding thread gave them (see `SerializedEvents`); not logged. */
  propertiesSpans?: Uint32Array;
}

/** The events waiting in a capture log. */
export interface CaptureBacklog {
  events: number;
  oldestReceivedAt: number | null;
}

/** The events of an entry this process still holds in memory. */
export type HeldEvents = Pick<CaptureLogEntry, 'events' | 'propertiesSpans'>;

const textEncoder = new TextEncoder();

/**
 * An entry's events from their JSON text. The bytes have a buffer of their own, so a thread can
 * transfer them (a small `Buffer.from` would be a view of Node's shared pool).
 */
export function loggedEventsBytes(json: string): Uint8Array<ArrayBuffer> {
  return textEncoder.encode(json);
}

/** The JSON text of an entry's events. */
export function loggedEventsText(events: Uint8Array): string {
  return Buffer.from(events.buffer, events.byteOffset, events.byteLength).toString('utf8');
}

/**
 * An entry as read back, with its position in the log. The events stay serialised: the consumer
 * decodes and parses them a few requests at a time, so a batch of them never holds up the event
 * loop.
 */
export interface StoredCaptureLogEntry {
  id: number;
  teamId: number;
  receivedAt: number;
  events: Uint8Array;
  /** Known only for entries handed over in memory: the log keeps the JSON alone. */
  propertiesSpans?: Uint32Array;
}

/**
 * The durable log of acknowledged capture requests, processed behind the answer. The embedded
 * stores keep it in files in the data directory (`FileCaptureLog`); with PostgreSQL it is a
 * catalog table, so nothing is kept in the data directory.
 */
export interface CaptureLog {
  /**
   * Commits accepted requests in order; durable when it resolves, with their ids, ascending. A
   * caller need not wait for one append before the next: entries take ids in the order of the
   * calls, and appends resolve in that order.
   */
  append(entries: readonly CaptureLogEntry[]): Promise<number[]>;
  /** The id of the newest entry; 0 when nothing was ever logged. */
  lastId(): Promise<number>;
  /** The id of the oldest entry not removed; 0 when none is left. */
  oldestId(): Promise<number>;
  /** What waits to be processed: its events, and when the oldest entry was received (epoch ms; null when none waits). */
  backlog(): Promise<CaptureBacklog>;
  /**
   * The oldest entries after id `after` up to id `through`, in order, until about `events` events
   * (at least one entry when any waits). `known` gives the events of entries this process still
   * holds in memory; only the others are read.
   */
  read(events: number, after: number, through: number, known?: (id: number) => HeldEvents | undefined): Promise<StoredCaptureLogEntry[]>;
  /** Removes the entries up to `through`: their events are in the warehouse. */
  remove(through: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * How every log sizes a read: the leading entries whose events fit in `budget`, and at least
 * one, so a request larger than the budget is still read, alone.
 */
export function withinEventBudget<T extends { eventCount: number }>(candidates: Iterable<T>, budget: number): T[] {
  const taken: T[] = [];
  let total = 0;
  for (const candidate of candidates) {
    if (total > 0 && total + candidate.eventCount > budget) break;
    total += candidate.eventCount;
    taken.push(candidate);
  }
  return taken;
}

/** Requests per statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 200;

/** The events of an entry until its row is read. */
const EMPTY = new Uint8Array(0);

/** The capture log as the catalog table `capture_log`. */
export class CatalogCaptureLog implements CaptureLog {
  /**
   * One append at a time in this process; across processes, the append-order lock. Concurrent
   * transactions could commit out of id order, and a pass reading up to the newest id would skip
   * an older entry committed after it.
   */
  private readonly appends = new Mutex();

  constructor(
    private readonly db: CatalogDb,
    private readonly dialect: CatalogDialect,
  ) {}

  append(entries: readonly CaptureLogEntry[]): Promise<number[]> {
    return this.appends.run(() => this.insert(entries));
  }

  private insert(entries: readonly CaptureLogEntry[]): Promise<number[]> {
    const rows = entries.map((entry) => ({
      team_id: entry.teamId,
      received_at: entry.receivedAt,
      event_count: entry.eventCount,
      events: loggedEventsText(entry.events),
    }));
    return this.db.transaction().execute(async (trx) => {
      await holdAppendOrder(trx, this.dialect, AppendOrderedTable.CaptureLog);
      const ids: number[] = [];
      for (let index = 0; index < rows.length; index += CHUNK) {
        const inserted = await trx
          .insertInto('capture_log')
          .values(rows.slice(index, index + CHUNK))
          .returning('id')
          .execute();
        // Ids are assigned in the order of the rows; RETURNING's own order is not promised.
        ids.push(...inserted.map((row) => Number(row.id)).sort((a, b) => a - b));
      }
      return ids;
    });
  }

  async lastId(): Promise<number> {
    const row = await this.db.selectFrom('capture_log').select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
    return row ? Number(row.id) : 0;
  }

  async oldestId(): Promise<number> {
    const row = await this.db.selectFrom('capture_log').select('id').orderBy('id').limit(1).executeTakeFirst();
    return row ? Number(row.id) : 0;
  }

  async backlog(): Promise<CaptureBacklog> {
    const row = await this.db
      .selectFrom('capture_log')
      .select((eb) => [eb.fn.sum<string | number | null>('event_count').as('events'), eb.fn.min<string | number | null>('received_at').as('oldest')])
      .executeTakeFirst();
    return { events: Number(row?.events ?? 0), oldestReceivedAt: row?.oldest == null ? null : Number(row.oldest) };
  }

  async read(
    events: number,
    after: number,
    through: number,
    known: (id: number) => HeldEvents | undefined = () => undefined,
  ): Promise<StoredCaptureLogEntry[]> {
    const heads = await this.db
      .selectFrom('capture_log')
      .select(['id', 'team_id', 'received_at', 'event_count'])
      .where('id', '>', after)
      .where('id', '<=', through)
      .orderBy('id')
      .limit(events)
      .execute();
    const taken = withinEventBudget(
      heads.map((head) => ({ id: Number(head.id), teamId: Number(head.team_id), receivedAt: Number(head.received_at), eventCount: Number(head.event_count) })),
      events,
    );
    const entries: StoredCaptureLogEntry[] = [];
    const unknown = new Map<number, StoredCaptureLogEntry>();
    for (const { id, teamId, receivedAt } of taken) {
      const held = known(id);
      const entry: StoredCaptureLogEntry = { id, teamId, receivedAt, events: held?.events ?? EMPTY, propertiesSpans: held?.propertiesSpans };
      if (held === undefined) unknown.set(id, entry);
      entries.push(entry);
    }
    const ids = [...unknown.keys()];
    for (let index = 0; index < ids.length; index += CHUNK) {
      const rows = await this.db
        .selectFrom('capture_log')
        .select(['id', 'events'])
        .where('id', 'in', ids.slice(index, index + CHUNK))
        .execute();
      for (const row of rows) unknown.get(Number(row.id))!.events = loggedEventsBytes(row.events);
    }
    return entries;
  }

  async remove(through: number): Promise<void> {
    await this.db.deleteFrom('capture_log').where('id', '<=', through).execute();
  }

  async close(): Promise<void> {}
}
