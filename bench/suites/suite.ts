export interface SuiteOptions {
  /** Events to load (persons, for the persons suite). */
  events: number;
  /** A kept data directory: filled on the first run, reused by later runs of the same suite and size. */
  dataDir?: string;
  /** Capture only: a PostgreSQL admin URL, to load shared stores (a fresh database and a ClickHouse test server) instead of a data directory. */
  postgres?: string;
  /** Capture only, with `postgres`: the Tally processes sharing the stores. */
  processes: number;
}
