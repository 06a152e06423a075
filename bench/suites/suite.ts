export interface SuiteOptions {
  /** Events to load (persons, for the persons suite). */
  events: number;
  /** A kept data directory: filled on the first run, reused by later runs of the same suite and size. */
  dataDir?: string;
}
