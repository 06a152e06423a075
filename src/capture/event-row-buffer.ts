/** Room for a batch's first rows; the buffer doubles when they need more. */
const INITIAL_BYTES = 1 << 20;

/** A UTF-16 code unit never takes more than three bytes of UTF-8. */
const MAX_BYTES_PER_UNIT = 3;

/**
 * Event rows as JSONEachRow lines, encoded into one buffer as they are made, with each row's
 * dedup key (project, uuid). A batch's rows wait for the warehouse insert while the next batch
 * is processed: kept as strings they would be copied by every young-generation collection on the
 * way and joined into one text at the end; here each line is encoded once, off the heap.
 */
export class EventRowBuffer {
  private bytes = Buffer.allocUnsafe(0);
  private used = 0;
  private readonly teamIds: number[] = [];
  private readonly uuids: string[] = [];
  /** Where each row's line ends (its newline excluded). */
  private readonly ends: number[] = [];

  get count(): number {
    return this.ends.length;
  }

  add(teamId: number, uuid: string, line: string): void {
    this.reserve(line.length * MAX_BYTES_PER_UNIT + 1);
    if (this.used > 0) this.bytes[this.used++] = 0x0a;
    this.used += this.bytes.write(line, this.used);
    this.teamIds.push(teamId);
    this.uuids.push(uuid);
    this.ends.push(this.used);
  }

  teamIdOf(row: number): number {
    return this.teamIds[row]!;
  }

  uuidOf(row: number): string {
    return this.uuids[row]!;
  }

  /** The rows as newline-separated lines, leaving out those whose index is in `skipped`. */
  lines(skipped: ReadonlySet<number> = new Set()): Buffer {
    const all = this.bytes.subarray(0, this.used);
    if (skipped.size === 0) return all;
    const kept: Buffer[] = [];
    for (let row = 0; row < this.ends.length; row++) {
      if (skipped.has(row)) continue;
      // Every line but the first has its separating newline in front of it.
      const start = row === 0 ? 0 : this.ends[row - 1]! + 1;
      if (kept.length > 0) kept.push(NEWLINE);
      kept.push(all.subarray(start, this.ends[row]!));
    }
    return Buffer.concat(kept);
  }

  private reserve(bytes: number): void {
    if (this.used + bytes <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(INITIAL_BYTES, 2 * this.bytes.length, this.used + bytes));
    this.bytes.copy(grown, 0, 0, this.used);
    this.bytes = grown;
  }
}

const NEWLINE = Buffer.from('\n');
