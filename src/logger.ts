import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The process's one logger: the HTTP layer logs requests through it and background work
 * (ingestion, scheduled jobs, warehouse upkeep) reports its failures through it, as JSON lines
 * on stdout at `LOG_LEVEL`.
 */
export function createLogger(level: string): Logger {
  return pino({ level });
}
