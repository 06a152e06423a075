import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * The process's one logger: the HTTP layer logs requests through it (each line with its request
 * id) and background work (ingestion, the replica relay, scheduled jobs, warehouse upkeep) reports
 * what it did, how long it took and its failures through it, at `LOG_LEVEL`: JSON lines on stdout
 * for a log collector, or readable lines when stdout is a terminal.
 */
export function createLogger(level: string): Logger {
  if (!process.stdout.isTTY) return pino({ level });
  return pino({
    level,
    transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } },
  });
}
