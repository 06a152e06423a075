import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { usesEmbeddedStorage, type Config } from './config.js';
import { localUrl, newServerToken, publishServer } from './storage/server-file.js';
import { describeBootstrap } from './bootstrap.js';
import { JobScheduler } from './jobs/scheduler.js';
import { openStores, type OpenStores } from './stores.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

/** Opens the stores, builds the app and listens; the process entry for `tally serve`. */
export async function startServer(config: Config): Promise<RunningServer> {
  const stores: OpenStores = await openStores(config);
  if (stores.bootstrap) console.log(describeBootstrap(stores.bootstrap));
  // Commands run next to a server on the same data directory reach it with this (`tally backup`).
  const serverToken = usesEmbeddedStorage(config) ? newServerToken() : null;
  let app: FastifyInstance;
  let port: number;
  let unpublish = () => {};
  try {
    app = await buildApp(stores.context, { serverToken });
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : config.port;
    if (serverToken !== null) unpublish = publishServer(config.dataDir, { url: localUrl(config.host, port), token: serverToken });
  } catch (error) {
    await stores.close();
    throw error;
  }
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  console.log(`Tally is listening on ${url}`);
  const scheduler = new JobScheduler(stores.context, config.deletionSchedule);
  return {
    app,
    url,
    async stop() {
      unpublish();
      await scheduler.stop();
      await app.close();
      await stores.close();
    },
  };
}
