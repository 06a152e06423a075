#!/usr/bin/env -S node --max-semi-space-size=64
import { UpgradeRefused } from './storage/catalog/migrations/015-legacy-queues.js';
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import { describeBootstrap } from './bootstrap.js';
import { ApiError } from './errors.js';
import { runQueuedJobs } from './jobs/jobs.js';
import { startServer } from './server.js';
import { DataDirLockedError } from './storage/data-dir-lock.js';
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

class CliError extends Error {}

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof DataDirLockedError || error instanceof ConfigError || error instanceof CliError || error instanceof UpgradeRefused) {
    console.error(`tally: ${error.message}`);
  } else if (error instanceof ApiError) {
    console.error(`tally: ${error.attr ? `${error.attr}: ` : ''}${error.detail}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
