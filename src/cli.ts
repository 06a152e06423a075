#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576 node --max-semi-space-size=16 --v8-pool-size=1
// The README says why the binary runs Node with this environment and these flags.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { BackupError, checkBackupDirectory, type BackupManifest } from './backup/backup-format.js';
import { UpgradeRefused } from './storage/catalog/migrations/015-legacy-queues.js';
import { restoreBackup } from './backup/restore.js';
import { SERVER_TOKEN_HEADER } from './http/routes/backup.js';
import { SQLITE_FILE } from './storage/catalog/catalog.js';
import { readServerFile } from './storage/server-file.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { describeBootstrap } from './bootstrap.js';
import { ApiError } from './errors.js';
import { runQueuedJobs } from './jobs/jobs.js';
import { startServer } from './server.js';
import { DataDirLockedError } from './storage/data-dir-lock.js';
import { LockLost } from './storage/catalog/process-coordination.js';
import { openStores, type OpenStores } from './stores.js';

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

function projectIds(value: string): number[] {
  return list(value).map((item) => {
    if (!/^\d+$/.test(item)) throw new InvalidArgumentError(`"${item}" is not a project id`);
    return Number(item);
  });
}

/** Runs an offline command against the stores, printing the bootstrap credentials if it created them. */
async function withStores<T>(config: Config, action: (stores: OpenStores) => Promise<T>): Promise<T> {
  const stores = await openStores(config);
  try {
    if (stores.bootstrap) console.log(describeBootstrap(stores.bootstrap));
    return await action(stores);
  } finally {
    await stores.close();
  }
}

/**
 * How long a stop may take before the process exits anyway. Everything acknowledged is durable
 * in the capture log and the stores recover from an exit at any point, so a stop never waits
 * longer than this on a store or a request.
 */
const STOP_DEADLINE_MS = 25_000;

async function serve(): Promise<void> {
  const server = await startServer(loadConfig());
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    server.app.log.info(`${signal} received, shutting down`);
    setTimeout(() => {
      server.app.log.error(`not stopped within ${STOP_DEADLINE_MS / 1000} s; exiting, the next start processes what is left`);
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    try {
      await server.stop();
    } catch (error) {
      server.app.log.error({ err: error }, 'stopping failed; the next start recovers');
      process.exit(1);
    }
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

const program = new Command().name('tally').description('Product analytics server with a PostHog-compatible API').showHelpAfterError();

program.command('serve').description('Serve the HTTP API (PORT, HOST, TALLY_DATA_DIR, …)').action(serve);

program
  .command('keys')
  .description('Personal API keys')
  .command('create')
  .description('Create a personal API key and print it on the last line')
  .requiredOption('--scopes <scopes>', 'comma-separated scopes, e.g. "person:read,insight:read" or "*"', list)
  .option('--projects <ids>', 'comma-separated project ids the key is limited to', projectIds)
  .option('--label <label>', 'a label for the key', 'CLI key')
  .option('--user <email>', 'the owner (default: the first user)')
  .action(async (options: { scopes: string[]; projects?: number[]; label: string; user?: string }) => {
    await withStores(loadConfig(), async ({ context }) => {
      const user = options.user ? await context.accounts.findUserByEmail(options.user) : await context.accounts.firstUser();
      if (!user) throw new CliError(`No user with email ${options.user}`);
      const { key } = await context.keys.create({
        userId: user.id,
        label: options.label,
        scopes: options.scopes,
        scopedTeams: options.projects && options.projects.length > 0 ? options.projects : null,
      });
      console.log(key);
    });
  });

program
  .command('projects')
  .description('Projects')
  .command('create')
  .description('Create a project and print {"id", "api_token"} on the last line')
  .requiredOption('--name <name>', 'project name')
  .option('--timezone <tz>', 'IANA time zone', 'UTC')
  .action(async (options: { name: string; timezone: string }) => {
    await withStores(loadConfig(), async ({ context }) => {
      const user = await context.accounts.firstUser();
      if (!user) throw new CliError('The catalog has no user');
      const project = await context.projects.create({
        organizationId: user.organizationId,
        name: options.name,
        timezone: options.timezone,
        creatorEmail: user.email,
      });
      console.log(JSON.stringify({ id: project.id, api_token: project.apiToken }));
    });
  });

program
  .command('jobs')
  .description('Background jobs')
  .command('run')
  .description('Run every queued job task now (the same code path as the schedule), then exit')
  .action(async () => {
    await withStores(loadConfig(), async ({ context }) => {
      const results = await runQueuedJobs(context);
      if (results === null) throw new CliError('another Tally process on these stores is running the jobs now; its run takes the queued tasks');
      const total = results.reduce((sum, result) => sum + result.tasks, 0);
      for (const result of results) console.log(`${result.name}: ${result.tasks} tasks`);
      console.log(`${total} tasks`);
    });
  });

program
  .command('backup')
  .description('Write a consistent backup of the data directory into DIR (new or empty), through the server while one holds the directory')
  .argument('<dir>', 'where to write the backup: a new or empty directory outside the data directory')
  .action(async (dir: string) => {
    const config = loadConfig();
    refuseUnlessEmbedded(config, 'backup');
    const directory = path.resolve(dir);
    checkBackupDirectory(directory, config.dataDir);
    if (!fs.existsSync(path.join(config.dataDir, SQLITE_FILE))) {
      throw new CliError(`${config.dataDir} holds no Tally data to back up (no ${SQLITE_FILE}); is TALLY_DATA_DIR set as the server's?`);
    }
    let stores: OpenStores;
    try {
      stores = await openStores(config);
    } catch (error) {
      if (!(error instanceof DataDirLockedError)) throw error;
      printBackup(await backupThroughServer(config, directory, error.pid));
      return;
    }
    try {
      if (!stores.context.backup) throw new CliError('these stores cannot be backed up by Tally');
      printBackup({ path: directory, ...(await stores.context.backup.write(directory)) });
    } finally {
      await stores.close();
    }
  });

program
  .command('restore')
  .description('Fill the empty data directory (TALLY_DATA_DIR) from the backup in DIR')
  .argument('<dir>', 'a directory written by tally backup')
  .action(async (dir: string) => {
    const config = loadConfig();
    refuseUnlessEmbedded(config, 'restore');
    const directory = path.resolve(dir);
    const manifest = await restoreBackup(directory, config.dataDir);
    console.log(
      `Restored ${manifest.warehouse.events} events and ${manifest.catalog.persons} persons into ${config.dataDir} (backed up at ${manifest.created_at}); ` +
        `the next start processes the ${manifest.capture_log.events} events that were acknowledged and not yet processed then.`,
    );
    console.log(JSON.stringify({ data_dir: config.dataDir, ...manifest }));
  });

class CliError extends Error {}

/** Backups and restores are of the embedded stores; PostgreSQL and ClickHouse have their own tools. */
function refuseUnlessEmbedded(config: Config, command: string): void {
  if (config.databaseUrl === null && config.clickhouseUrl === null) return;
  throw new CliError(
    `tally ${command} works on the embedded stores only (no DATABASE_URL, no CLICKHOUSE_URL). ` +
      'Back up PostgreSQL with pg_dump and ClickHouse with its BACKUP statement instead: see "Backup and restore" in the README.',
  );
}

type BackupSummary = BackupManifest & { path: string };

function printBackup(summary: BackupSummary): void {
  console.log(
    `Backed up ${summary.warehouse.events} events and ${summary.catalog.persons} persons to ${summary.path}, with ` +
      `${summary.capture_log.events} events acknowledged and not yet processed (${summary.capture_log.entries} capture requests).`,
  );
  console.log(JSON.stringify(summary));
}

/**
 * Has the server holding the data directory write the backup (`POST /api/backup/`), reaching it
 * through the server file it published there. The answer comes once the backup is written, however
 * long that takes.
 */
async function backupThroughServer(config: Config, directory: string, pid: number): Promise<BackupSummary> {
  const server = readServerFile(config.dataDir);
  if (!server || server.pid !== pid) {
    throw new CliError(
      `the Tally server (pid ${pid}) holding ${config.dataDir} has not published how to reach it (it may still be starting); try again in a moment`,
    );
  }
  const { status, text } = await postJson(`${server.url}/api/backup/`, { path: directory }, { [SERVER_TOKEN_HEADER]: server.token });
  let body: Record<string, unknown> | null = null;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Reported below with the text as it came.
  }
  if (status !== 200 || body === null) {
    const detail = typeof body?.detail === 'string' ? body.detail : text;
    throw new CliError(`the server at ${server.url} did not write the backup (${status}): ${detail}`);
  }
  return body as unknown as BackupSummary;
}

function postJson(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', (error) => reject(new CliError(`the Tally server at ${url} cannot be reached: ${error.message}`)));
    request.end(JSON.stringify(body));
  });
}

program.parseAsync(process.argv).catch((error: unknown) => {
  const explained = [DataDirLockedError, ConfigError, CliError, BackupError, UpgradeRefused, LockLost].some((kind) => error instanceof kind);
  if (explained && error instanceof Error) {
    console.error(`tally: ${error.message}`);
  } else if (error instanceof ApiError) {
    console.error(`tally: ${error.attr ? `${error.attr}: ` : ''}${error.detail}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
