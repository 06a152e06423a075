import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { usesEmbeddedStorage, type Config } from './config.js';
import { localUrl, newServerToken, publishServer } from './storage/server-file.js';
import { describeBootstrap } from './bootstrap.js';
import { JobScheduler } from './jobs/scheduler.js';
import { serveMetrics, type MetricsServer } from './observability/metrics-server.js';
import { TallyMetrics } from './observability/metrics.js';
import { openStores, type OpenStores } from './stores.js';
import { releaseLoadedCode } from './util/release-loaded-code.js';

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

/** Opens the stores, builds the app and listens; the process entry for `tally serve`. */
export async function startServer(config: Config): Promise<RunningServer> {
  const stores: OpenStores = await openStores(config);
  if (stores.bootstrap) console.log(describeBootstrap(stores.bootstrap));
  const metrics = config.metricsPort === null ? null : new TallyMetrics(stores.context);
  // Commands run next to a server on the same data directory reach it with this (`tally backup`).
  const serverToken = usesEmbeddedStorage(config) ? newServerToken() : null;
  let app: FastifyInstance;
  let port: number;
  let metricsServer: MetricsServer | null = null;
  let unpublish = () => {};
  try {
    app = await buildApp(stores.context, { metrics: metrics ?? undefined, serverToken });
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    port = typeof address === 'object' && address ? address.port : config.port;
    if (metrics) metricsServer = await serveMetrics(metrics, config.host, config.metricsPort!, stores.context.logger);
    if (serverToken !== null) unpublish = publishServer(config.dataDir, { url: localUrl(config.host, port), token: serverToken });
  } catch (error) {
    await stores.close();
    throw error;
  }
  // Start-up is over: the code only it ran need not stay resident.
  app.log.debug({ bytes: await releaseLoadedCode() }, 'released the pages of start-up code');
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Before the listening line, which tells a supervisor the server is ready.
  if (metricsServer) console.log(`Prometheus metrics at ${metricsServer.url}`);
  console.log(`Tally is listening on ${url}`);
  const scheduler = new JobScheduler(stores.context, config.deletionSchedule);
  return {
    app,
    url,
    async stop() {
      unpublish();
      await scheduler.stop();
      await metricsServer?.close();
      await app.close();
      await stores.close();
    },
  };
}
