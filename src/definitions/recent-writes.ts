/**
 * A bounded memory of what the recorder already wrote, so the ingestion hot path can skip
 * catalog writes. When full, the least recently written key is forgotten, which only costs one
 * redundant (idempotent) upsert later.
 */
export class RecentWrites<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}
