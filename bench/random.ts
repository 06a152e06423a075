/** A small seeded PRNG (mulberry32) so every run generates the same data. */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A skewed pick: earlier items are more likely, as real traffic is. */
  pickSkewed<T>(items: readonly T[]): T {
    return items[Math.floor(items.length * this.next() ** 2)]!;
  }

  /** A UUIDv7 for a moment, as the PostHog SDKs generate them: time-ordered, random below. */
  uuidAt(timeMs: number): string {
    const time = Math.floor(timeMs).toString(16).padStart(12, '0');
    const hex = Array.from({ length: 20 }, () => this.int(16).toString(16)).join('');
    return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hex.slice(0, 3)}-a${hex.slice(3, 6)}-${hex.slice(6, 18)}`;
  }
}
