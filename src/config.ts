import path from 'node:path';
import { Cron } from 'croner';

/** Every environment variable Tally reads, validated once at start-up. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  clickhouseUrl: string | null;
  clickhouseDatabase: string;
  /** The ClickHouse cluster the warehouse tables are created on (TALLY_CLICKHOUSE_CLUSTER), or null for one server. */
  clickhouseCluster: string | null;
  projectToken: string | null;
  personalApiKey: string | null;
  deletionSchedule: string;
  logLevel: string;
  /** How long a query API query may run before it answers 504 (TALLY_QUERY_TIMEOUT_S). */
  queryTimeoutSeconds: number;
  /** The port of the Prometheus metrics (TALLY_METRICS_PORT), on HOST; null serves none. */
  metricsPort: number | null;
  /** How long ingestion may process nothing while events wait before /_health answers 503 (TALLY_INGESTION_STALL_S). */
  ingestionStallSeconds: number;
}

export class ConfigError extends Error {}

const DEFAULT_DELETION_SCHEDULE = '0 5 * * 0';

/** A name that DDL may hold as it is: the cluster's, and the database's in the cluster's table definitions. */
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function optional(env: NodeJS.ProcessEnv, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const portText = optional(env, 'PORT') ?? '8000';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer between 0 and 65535, got "${portText}"`);
  }
  const databaseUrl = optional(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  const clickhouseUrl = optional(env, 'CLICKHOUSE_URL');
  if (clickhouseUrl && !/^https?:\/\//.test(clickhouseUrl)) {
    throw new ConfigError('CLICKHOUSE_URL must be an http:// or https:// URL');
  }
  const clickhouseDatabase = optional(env, 'CLICKHOUSE_DATABASE') ?? 'default';
  const clickhouseCluster = optional(env, 'TALLY_CLICKHOUSE_CLUSTER');
  if (clickhouseCluster !== null) {
    if (clickhouseUrl === null) {
      throw new ConfigError('TALLY_CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL: the embedded warehouse (chDB) is a single node, not a cluster');
    }
    if (!PLAIN_IDENTIFIER.test(clickhouseCluster)) {
      throw new ConfigError(
        `TALLY_CLICKHOUSE_CLUSTER must be a cluster name of letters, digits and underscores, not starting with a digit, got "${clickhouseCluster}"`,
      );
    }
    if (!PLAIN_IDENTIFIER.test(clickhouseDatabase)) {
      throw new ConfigError(
        `CLICKHOUSE_DATABASE must be a name of letters, digits and underscores, not starting with a digit, with TALLY_CLICKHOUSE_CLUSTER (the cluster's table definitions name it), got "${clickhouseDatabase}"`,
      );
    }
  }
  const deletionSchedule = optional(env, 'TALLY_DELETION_SCHEDULE') ?? DEFAULT_DELETION_SCHEDULE;
  try {
    new Cron(deletionSchedule, { paused: true, timezone: 'UTC' }).stop();
  } catch (error) {
    throw new ConfigError(`TALLY_DELETION_SCHEDULE is not a valid cron expression: ${(error as Error).message}`);
  }
  const queryTimeoutText = optional(env, 'TALLY_QUERY_TIMEOUT_S') ?? '60';
  const queryTimeoutSeconds = Number(queryTimeoutText);
  if (!Number.isFinite(queryTimeoutSeconds) || queryTimeoutSeconds <= 0 || queryTimeoutSeconds > 86_400) {
    throw new ConfigError(`TALLY_QUERY_TIMEOUT_S must be a number of seconds between 0 and 86400, got "${queryTimeoutText}"`);
  }
  const metricsPortText = optional(env, 'TALLY_METRICS_PORT');
  const metricsPort = metricsPortText === null ? null : Number(metricsPortText);
  if (metricsPort !== null && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)) {
    throw new ConfigError(`TALLY_METRICS_PORT must be an integer between 0 and 65535, got "${metricsPortText}"`);
  }
  const stallText = optional(env, 'TALLY_INGESTION_STALL_S') ?? '300';
  const ingestionStallSeconds = Number(stallText);
  if (!Number.isFinite(ingestionStallSeconds) || ingestionStallSeconds <= 0 || ingestionStallSeconds > 604_800) {
    throw new ConfigError(`TALLY_INGESTION_STALL_S must be a number of seconds between 0 and 604800, got "${stallText}"`);
  }
  const projectToken = optional(env, 'TALLY_PROJECT_TOKEN');
  if (projectToken && (projectToken.startsWith('phx_') || projectToken.length > 64)) {
    throw new ConfigError('TALLY_PROJECT_TOKEN must be a project token (not a phx_ personal key) of at most 64 characters');
  }
  return {
    port,
    host: optional(env, 'HOST') ?? '127.0.0.1',
    dataDir: path.resolve(optional(env, 'TALLY_DATA_DIR') ?? './data'),
    databaseUrl,
    clickhouseUrl,
    clickhouseDatabase,
    clickhouseCluster,
    projectToken,
    personalApiKey: optional(env, 'TALLY_PERSONAL_API_KEY'),
    deletionSchedule,
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
    queryTimeoutSeconds,
    metricsPort,
    ingestionStallSeconds,
  };
}

/** True when at least one store lives in the data directory, so the directory needs the lock. */
export function usesEmbeddedStorage(config: Config): boolean {
  return config.databaseUrl === null || config.clickhouseUrl === null;
}
