import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { Mutex } from '../../util/mutex.js';
import { withinEventBudget, type CaptureBacklog, type CaptureLog, type CaptureLogEntry, type HeldEvents, type StoredCaptureLogEntry } from '../capture-log.js';
import { decodeSegment, encodedRecordLength, encodeRecord, RECORD_HEADER_BYTES } from './spool-record.js';

/** A segment takes appends until it reaches this size; then the next append starts a new one. */
const DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;
const SEGMENT_SUFFIX = '.log';
/** Holds the id up to which entries are removed: float64 id, then its CRC-32. */
const REMOVED_FILE = 'removed';
/** Where the platform has O_DSYNC, a segment's writes are durable when they return; elsewhere each is followed by an fdatasync. */
const SYNCED_WRITES_FLAG: number | undefined = fs.constants.O_DSYNC;

interface Segment {
  file: string;
  lastId: number;
  bytes: number;
  /** Opened on the first read of an entry that is not held in memory. */
  reader: Promise<FileHandle> | null;
  /** Settles when every append written to the segment so far has. */
  writes: Promise<void>;
  /** The first write to the segment that failed: nothing after it is acknowledged. */
  failure: { error: unknown } | null;
}

interface IndexedEntry {
  id: number;
  teamId: number;
  receivedAt: number;
  eventCount: number;
  segment: Segment;
  payloadOffset: number;
  payloadLength: number;
}

/**
 * The capture log of the embedded stores: append-only segment files in the data directory.
 * An append is one synchronous positional write on libuv's threads, so the event loop never waits
 * on the disk for an acknowledgement (a log table in SQLite cost the main thread an
 * fsync per commit and wrote every event twice, to the WAL and at checkpoint). Removal writes
 * the removed-through id, and deletes the segments it covers.
 */
export class FileCaptureLog implements CaptureLog {
  /** Appends claiming their place, removals and closing change files one at a time. */
  private readonly files = new Mutex();
  private readonly entries: IndexedEntry[] = [];
  /** Index of the first entry in `entries` not removed yet (removal trims the array lazily). */
  private head = 0;
  private readonly segments: Segment[] = [];
  private active: { segment: Segment; writer: FileHandle } | null = null;
  private nextId: number;
  private removedThrough: number;
  private removedFile: FileHandle | null = null;
  /** Settles when every append made so far has: appends resolve in order. */
  private lastAppend: Promise<void> = Promise.resolve();

  private constructor(
    private readonly directory: string,
    private readonly segmentBytes: number,
    removedThrough: number,
    lastId: number,
  ) {
    this.removedThrough = removedThrough;
    this.nextId = Math.max(removedThrough, lastId) + 1;
  }

  /** Opens the log in `directory`: indexes what is not removed and cuts off a write a crash left torn. */
  static async open(directory: string, { segmentBytes = DEFAULT_SEGMENT_BYTES } = {}): Promise<FileCaptureLog> {
    fs.mkdirSync(directory, { recursive: true });
    const removedThrough = readRemovedThrough(path.join(directory, REMOVED_FILE));
    const files = fs
      .readdirSync(directory)
      .filter((name) => name.endsWith(SEGMENT_SUFFIX))
      .sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
    const kept: { segment: Segment; entries: IndexedEntry[] }[] = [];
    let lastId = 0;
    for (const name of files) {
      const file = path.join(directory, name);
      const contents = fs.readFileSync(file);
      const { records, intactBytes } = decodeSegment(contents);
      if (intactBytes < contents.length) fs.truncateSync(file, intactBytes);
      if (records.length > 0) lastId = Math.max(lastId, records[records.length - 1]!.id);
      const segment: Segment = { file, lastId: records.at(-1)?.id ?? 0, bytes: intactBytes, reader: null, writes: Promise.resolve(), failure: null };
      const live = records.filter((record) => record.id > removedThrough);
      if (live.length === 0) {
        fs.rmSync(file);
        continue;
      }
      kept.push({ segment, entries: live.map((record) => ({ ...record, segment })) });
    }
    const log = new FileCaptureLog(directory, segmentBytes, removedThrough, lastId);
    for (const { segment, entries } of kept) {
      log.segments.push(segment);
      log.entries.push(...entries);
    }
    return log;
  }

  /**
   * Writes the entries as soon as they come, beside appends still in flight: each append is one
   * positional write to the segment, opened with O_DSYNC so the write returns once it is on disk
   * (a write and then an fdatasync would cost the event loop two round trips). An append resolves
   * only after every earlier one, so what is acknowledged never lies after a gap: a crash can
   * leave a later record written and an earlier one not, and opening the log cuts a segment at
   * its first damaged record.
   */
  async append(entries: readonly CaptureLogEntry[]): Promise<number[]> {
    const { appended } = await this.files.run(() => this.startWrite(entries));
    return appended;
  }

  /**
   * Claims ids and a place in the active segment, and starts the write there. The append's promise
   * comes back wrapped: returned bare, the async function would settle only with it, and the
   * files mutex would be held until the write ended.
   */
  private async startWrite(entries: readonly CaptureLogEntry[]): Promise<{ appended: Promise<number[]> }> {
    const lengths = entries.map((entry) => entry.events.byteLength);
    const buffer = Buffer.allocUnsafe(lengths.reduce((total, length) => total + encodedRecordLength(length), 0));
    // Ids are spent even if the write fails, so a record a failed write left behind never shares one.
    const firstId = this.nextId;
    this.nextId += entries.length;
    let offset = 0;
    for (const [index, entry] of entries.entries()) {
      const head = { id: firstId + index, teamId: entry.teamId, receivedAt: entry.receivedAt, eventCount: entry.eventCount };
      offset = encodeRecord(buffer, offset, head, entry.events);
    }
    const { segment, writer } = await this.writableSegment(firstId);
    const position = segment.bytes;
    segment.bytes += buffer.length;
    segment.lastId = firstId + entries.length - 1;
    const write = this.writeAt(segment, writer, buffer, position);
    // Its failure is the append's, seen once the earlier appends settle; until then it must not count as unhandled.
    write.catch(() => undefined);
    const appended = this.lastAppend.then(async () => {
      await write;
      // A failed write before this one, in the same segment, left a gap that opening would cut at.
      if (segment.failure !== null) throw segment.failure.error;
      let recordOffset = position;
      const ids: number[] = [];
      for (const [index, entry] of entries.entries()) {
        const id = firstId + index;
        const payloadLength = lengths[index]!;
        const { teamId, receivedAt, eventCount } = entry;
        this.entries.push({ id, teamId, receivedAt, eventCount, segment, payloadOffset: recordOffset + RECORD_HEADER_BYTES, payloadLength });
        recordOffset += encodedRecordLength(payloadLength);
        ids.push(id);
      }
      return ids;
    });
    this.lastAppend = appended.then(
      () => undefined,
      () => undefined,
    );
    segment.writes = this.lastAppend;
    return { appended };
  }

  /** Writes one append's records; a failure retires the segment, cut back to where the failed write began. */
  private async writeAt(segment: Segment, writer: FileHandle, buffer: Buffer, position: number): Promise<void> {
    try {
      await writeFully(writer, buffer, position);
      if (SYNCED_WRITES_FLAG === undefined) await writer.datasync();
    } catch (error) {
      if (segment.failure === null) {
        segment.failure = { error };
        if (this.active?.segment === segment) this.active = null;
        await writer.truncate(position).catch(() => undefined);
        // Writes after this one may still be running on the descriptor: it closes once they end.
        void segment.writes.then(() => writer.close()).catch(() => undefined);
      }
      throw error;
    }
  }

  async lastId(): Promise<number> {
    return this.head < this.entries.length ? this.entries[this.entries.length - 1]!.id : this.removedThrough;
  }

  async oldestId(): Promise<number> {
    return this.head < this.entries.length ? this.entries[this.head]!.id : 0;
  }

  async backlog(): Promise<CaptureBacklog> {
    let events = 0;
    for (let index = this.head; index < this.entries.length; index++) events += this.entries[index]!.eventCount;
    return { events, oldestReceivedAt: this.head < this.entries.length ? this.entries[this.head]!.receivedAt : null };
  }

  async read(
    events: number,
    after: number,
    through: number,
    known: (id: number) => HeldEvents | undefined = () => undefined,
  ): Promise<StoredCaptureLogEntry[]> {
    // Chosen before the first await: a removal meanwhile may compact `entries` under the loop.
    const taken = withinEventBudget(this.entriesBetween(after, through), events);
    const read: StoredCaptureLogEntry[] = [];
    for (const entry of taken) {
      const held = known(entry.id);
      const { id, teamId, receivedAt } = entry;
      read.push(
        held
          ? { id, teamId, receivedAt, events: held.events, propertiesSpans: held.propertiesSpans }
          : { id, teamId, receivedAt, events: await this.eventsOf(entry) },
      );
    }
    return read;
  }

  remove(through: number): Promise<void> {
    return this.files.run(async () => {
      if (through <= this.removedThrough) return;
      this.removedFile ??= await fs.promises.open(path.join(this.directory, REMOVED_FILE), fs.constants.O_RDWR | fs.constants.O_CREAT);
      await writeFully(this.removedFile, encodeRemovedThrough(through), 0);
      await this.removedFile.datasync();
      this.removedThrough = through;
      while (this.head < this.entries.length && this.entries[this.head]!.id <= through) this.head++;
      if (this.head > 1024 && this.head * 2 > this.entries.length) {
        this.entries.splice(0, this.head);
        this.head = 0;
      }
      while (this.segments.length > 0 && this.segments[0]!.lastId <= through) {
        const segment = this.segments[0]!;
        if (this.active?.segment === segment) {
          await this.active.writer.close();
          this.active = null;
        }
        this.segments.shift();
        await (await segment.reader)?.close();
        await fs.promises.rm(segment.file, { force: true });
      }
    });
  }

  /**
   * Writes a copy of the log into `target` (a new directory): every entry not removed, among them
   * every append acknowledged before the call, with the removed-through id. Appends go on
   * meanwhile; the ones claimed before the call are copied once written, later ones are not. The
   * caller holds removals off (the consumer paused): a segment removed under the copy fails it.
   */
  async copyTo(target: string): Promise<CaptureLogCopy> {
    const { segments, removedThrough, written } = await this.files.run(async () => ({
      segments: this.segments.map(({ file, bytes }) => ({ file, bytes })),
      removedThrough: this.removedThrough,
      written: this.lastAppend,
    }));
    await written;
    await fs.promises.mkdir(target, { recursive: true });
    const copy: CaptureLogCopy = { entries: 0, events: 0, bytes: 0 };
    for (const { file, bytes } of segments) {
      const contents = Buffer.allocUnsafe(bytes);
      const reader = await fs.promises.open(file, 'r');
      let read = 0;
      try {
        while (read < bytes) {
          const { bytesRead } = await reader.read(contents, read, bytes - read, read);
          if (bytesRead === 0) break;
          read += bytesRead;
        }
      } finally {
        await reader.close();
      }
      // A write that failed left its segment cut back: only whole records are copied.
      const { records, intactBytes } = decodeSegment(contents.subarray(0, read));
      const live = records.filter((record) => record.id > removedThrough);
      if (live.length === 0) continue;
      // From the first record not removed: a segment keeps its removed records until all are.
      const start = live[0]!.payloadOffset - RECORD_HEADER_BYTES;
      await writeSynced(path.join(target, path.basename(file)), contents.subarray(start, intactBytes));
      copy.entries += live.length;
      copy.events += live.reduce((total, record) => total + record.eventCount, 0);
      copy.bytes += intactBytes - start;
    }
    await writeSynced(path.join(target, REMOVED_FILE), encodeRemovedThrough(removedThrough));
    await syncDirectory(target);
    return copy;
  }

  close(): Promise<void> {
    return this.files.run(async () => {
      await this.lastAppend;
      await this.active?.writer.close();
      this.active = null;
      for (const segment of this.segments) {
        await (await segment.reader)?.close();
        segment.reader = null;
      }
      await this.removedFile?.close();
      this.removedFile = null;
    });
  }

  /** The entries after id `after` up to id `through`, in order. */
  private *entriesBetween(after: number, through: number): Generator<IndexedEntry> {
    for (let index = this.firstAfter(after); index < this.entries.length && this.entries[index]!.id <= through; index++) {
      yield this.entries[index]!;
    }
  }

  /** The position in `entries` of the first entry after id `after` (ids ascend: binary search). */
  private firstAfter(after: number): number {
    let low = this.head;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.entries[middle]!.id <= after) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private async eventsOf(entry: IndexedEntry): Promise<Buffer> {
    entry.segment.reader ??= fs.promises.open(entry.segment.file, 'r');
    const reader = await entry.segment.reader;
    const payload = Buffer.allocUnsafe(entry.payloadLength);
    const { bytesRead } = await reader.read(payload, 0, entry.payloadLength, entry.payloadOffset);
    if (bytesRead !== entry.payloadLength) throw new Error(`capture log entry ${entry.id} is cut short in ${entry.segment.file}`);
    return payload;
  }

  /** The segment to append to: the active one while it is small enough, else a new one named by `firstId`. */
  private async writableSegment(firstId: number): Promise<{ segment: Segment; writer: FileHandle }> {
    if (this.active && this.active.segment.bytes < this.segmentBytes) return this.active;
    if (this.active) {
      const { segment, writer } = this.active;
      this.active = null;
      await segment.writes;
      await writer.close();
    }
    const file = path.join(this.directory, `${String(firstId).padStart(16, '0')}${SEGMENT_SUFFIX}`);
    const writer = await fs.promises.open(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_TRUNC | (SYNCED_WRITES_FLAG ?? 0));
    // The new file's name must be on disk before anything written to it is acknowledged.
    await syncDirectory(this.directory);
    const segment: Segment = { file, lastId: firstId - 1, bytes: 0, reader: null, writes: Promise.resolve(), failure: null };
    this.segments.push(segment);
    this.active = { segment, writer };
    return this.active;
  }
}

/** What `copyTo` copied: the entries not processed yet, their events, and the bytes of their segments. */
export interface CaptureLogCopy {
  entries: number;
  events: number;
  bytes: number;
}

async function writeSynced(file: string, contents: Buffer): Promise<void> {
  const handle = await fs.promises.open(file, 'wx');
  try {
    await writeFully(handle, contents, 0);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function writeFully(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  for (let written = 0; written < buffer.length; ) {
    const { bytesWritten } = await handle.write(buffer, written, buffer.length - written, position + written);
    written += bytesWritten;
  }
}

async function syncDirectory(directory: string): Promise<void> {
  const handle = await fs.promises.open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function encodeRemovedThrough(id: number): Buffer {
  const buffer = Buffer.alloc(12);
  buffer.writeDoubleLE(id, 0);
  buffer.writeUInt32LE(zlib.crc32(buffer.subarray(0, 8)), 8);
  return buffer;
}

/** 0 when nothing was removed yet, or when the file is damaged: then everything kept is processed again, which is safe. */
function readRemovedThrough(file: string): number {
  if (!fs.existsSync(file)) return 0;
  const buffer = fs.readFileSync(file);
  if (buffer.length < 12 || zlib.crc32(buffer.subarray(0, 8)) !== buffer.readUInt32LE(8)) return 0;
  return buffer.readDoubleLE(0);
}
