import zlib from 'node:zlib';

/** The fields of a capture-log entry that the spool keeps beside its events. */
export interface SpoolRecordHead {
  id: number;
  teamId: number;
  /** Epoch milliseconds. */
  receivedAt: number;
  eventCount: number;
}

/** A record found in a segment: its head and where its events' JSON lies in the segment. */
export interface DecodedSpoolRecord extends SpoolRecordHead {
  payloadOffset: number;
  payloadLength: number;
}

/**
 * Layout, little-endian: magic, payload length, CRC-32 of everything after the CRC, id (float64:
 * exact for every integer an id reaches), team id, received-at (float64), event count, payload.
 */
const MAGIC = 0x474f4c54; // "TLOG"
const CRC_OFFSET = 8;
export const RECORD_HEADER_BYTES = 36;

export function encodedRecordLength(payloadBytes: number): number {
  return RECORD_HEADER_BYTES + payloadBytes;
}

/** Writes one record at `offset` of `target` (sized with `encodedRecordLength`); returns the offset after it. */
export function encodeRecord(target: Buffer, offset: number, head: SpoolRecordHead, payload: Uint8Array): number {
  target.writeUInt32LE(MAGIC, offset);
  target.writeUInt32LE(payload.byteLength, offset + 4);
  target.writeDoubleLE(head.id, offset + 12);
  target.writeUInt32LE(head.teamId, offset + 20);
  target.writeDoubleLE(head.receivedAt, offset + 24);
  target.writeUInt32LE(head.eventCount, offset + 32);
  target.set(payload, offset + RECORD_HEADER_BYTES);
  const end = offset + RECORD_HEADER_BYTES + payload.byteLength;
  target.writeUInt32LE(zlib.crc32(target.subarray(offset + CRC_OFFSET + 4, end)), offset + CRC_OFFSET);
  return end;
}

/**
 * The records of a segment, in order, and the length of its intact prefix. Reading stops at the
 * first record that is incomplete or fails its checksum: a write the crash cut short, never
 * acknowledged, so nothing after it was acknowledged either.
 */
export function decodeSegment(segment: Buffer): { records: DecodedSpoolRecord[]; intactBytes: number } {
  const records: DecodedSpoolRecord[] = [];
  let offset = 0;
  while (offset + RECORD_HEADER_BYTES <= segment.length) {
    if (segment.readUInt32LE(offset) !== MAGIC) break;
    const payloadLength = segment.readUInt32LE(offset + 4);
    const end = offset + RECORD_HEADER_BYTES + payloadLength;
    if (end > segment.length) break;
    if (zlib.crc32(segment.subarray(offset + CRC_OFFSET + 4, end)) !== segment.readUInt32LE(offset + CRC_OFFSET)) break;
    records.push({
      id: segment.readDoubleLE(offset + 12),
      teamId: segment.readUInt32LE(offset + 20),
      receivedAt: segment.readDoubleLE(offset + 24),
      eventCount: segment.readUInt32LE(offset + 32),
      payloadOffset: offset + RECORD_HEADER_BYTES,
      payloadLength,
    });
    offset = end;
  }
  return { records, intactBytes: offset };
}
