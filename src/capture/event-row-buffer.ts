import { RowBinaryWriter, type WarehouseColumn } from '../storage/warehouse/row-binary.js';

/**
 * A row of the warehouse `events` table. `properties` and `person_properties` are JSON object
 * texts (`properties` may come in pieces, text or its UTF-8 bytes, that make the text one after
 * another); the three times are epoch microseconds.
 */
export interface EventRow {
  uuid: string;
  team_id: number;
  event: string;
  distinct_id: string;
  properties: string | readonly (string | Uint8Array)[];
  timestamp: number;
  created_at: number;
  elements_chain: string;
  person_id: string;
  person_properties: string;
  person_created_at: number;
  person_mode: string;
  $group_0: string;
  $group_1: string;
  $group_2: string;
  $group_3: string;
  $group_4: string;
  $session_id: string;
}

/** The columns of an encoded row, in the order `add` writes them. */
export const EVENT_ROW_COLUMNS: readonly WarehouseColumn[] = [
  { name: 'uuid', type: 'UUID' },
  { name: 'team_id', type: 'Int64' },
  { name: 'event', type: 'String' },
  { name: 'distinct_id', type: 'String' },
  { name: 'properties', type: 'String' },
  { name: 'timestamp', type: "DateTime64(6, 'UTC')" },
  { name: 'created_at', type: "DateTime64(6, 'UTC')" },
  { name: 'elements_chain', type: 'String' },
  { name: 'person_id', type: 'UUID' },
  { name: 'person_properties', type: 'String' },
  { name: 'person_created_at', type: "DateTime64(3, 'UTC')" },
  { name: 'person_mode', type: 'String' },
  { name: '$group_0', type: 'String' },
  { name: '$group_1', type: 'String' },
  { name: '$group_2', type: 'String' },
  { name: '$group_3', type: 'String' },
  { name: '$group_4', type: 'String' },
  { name: '$session_id', type: 'String' },
];

/**
 * A batch's rows are written into pieces of about this size. A full piece is kept as it is and
 * the next rows go to a new one, so rows are never copied to make room (a buffer that doubled
 * copied every row written before, and held both copies while it did).
 */
const PIECE_BYTES = 4 * 1024 * 1024;

/** What a piece allocates beyond `PIECE_BYTES`: the row that fills a piece ends in it. */
const PIECE_HEADROOM = 256 * 1024;

/**
 * Event rows encoded in RowBinary as they are made, in pieces of a few megabytes, with each
 * row's dedup key (project, uuid). A batch's rows wait for the warehouse insert while the next
 * batch is processed: kept as objects or strings they would be copied by every young-generation
 * collection on the way; here each row is encoded once, off the heap.
 */
export class EventRowBuffer {
  /** The pieces filled, each ending with a whole row. */
  private readonly pieces: Buffer[] = [];
  private piecesBytes = 0;
  private writer: RowBinaryWriter;
  private readonly teamIds: number[] = [];
  private readonly uuids: string[] = [];
  /** Where each row ends, counting the bytes of every piece before its own. */
  private readonly ends: number[] = [];

  /** `pieceBytes`: how much a piece holds before the next row starts another. */
  constructor(private readonly pieceBytes = PIECE_BYTES) {
    this.writer = this.newPiece();
  }

  get count(): number {
    return this.ends.length;
  }

  /** Bytes the encoded rows take. */
  get byteLength(): number {
    return this.piecesBytes + this.writer.length;
  }

  add(row: EventRow): void {
    const writer = this.writer;
    writer.uuid(row.uuid);
    writer.int64(row.team_id);
    writer.string(row.event);
    writer.string(row.distinct_id);
    if (typeof row.properties === 'string') writer.string(row.properties);
    else writer.stringOfPieces(row.properties);
    writer.int64(row.timestamp);
    writer.int64(row.created_at);
    writer.string(row.elements_chain);
    writer.uuid(row.person_id);
    writer.string(row.person_properties);
    writer.int64(Math.floor(row.person_created_at / 1000));
    writer.string(row.person_mode);
    writer.string(row.$group_0);
    writer.string(row.$group_1);
    writer.string(row.$group_2);
    writer.string(row.$group_3);
    writer.string(row.$group_4);
    writer.string(row.$session_id);
    this.teamIds.push(row.team_id);
    this.uuids.push(row.uuid);
    this.ends.push(this.piecesBytes + writer.length);
    if (writer.length >= this.pieceBytes) {
      this.pieces.push(writer.bytes());
      this.piecesBytes += writer.length;
      this.writer = this.newPiece();
    }
  }

  teamIdOf(row: number): number {
    return this.teamIds[row]!;
  }

  uuidOf(row: number): string {
    return this.uuids[row]!;
  }

  /**
   * The encoded rows, leaving out those whose index is in `skipped`: views of the pieces (each run
   * of kept rows in a piece one view), to be written one after another; valid until the next `add`.
   */
  encoded(skipped: ReadonlySet<number> = new Set()): Buffer[] {
    const pieces = this.writer.length > 0 ? [...this.pieces, this.writer.bytes()] : [...this.pieces];
    if (skipped.size === 0) return pieces;
    const kept: Buffer[] = [];
    let row = 0;
    let pieceStart = 0;
    for (const piece of pieces) {
      const pieceEnd = pieceStart + piece.length;
      let runStart: number | null = null;
      for (; row < this.ends.length && this.ends[row]! <= pieceEnd; row++) {
        const start = row === 0 ? 0 : this.ends[row - 1]!;
        if (skipped.has(row)) {
          if (runStart !== null) kept.push(piece.subarray(runStart - pieceStart, start - pieceStart));
          runStart = null;
        } else {
          runStart ??= start;
        }
      }
      if (runStart !== null) kept.push(piece.subarray(runStart - pieceStart, pieceEnd - pieceStart));
      pieceStart = pieceEnd;
    }
    return kept;
  }

  private newPiece(): RowBinaryWriter {
    return new RowBinaryWriter(this.pieceBytes + PIECE_HEADROOM);
  }
}
