import { parseArgs } from 'node:util';
import { startChdbHttpServer } from './chdb-http-server.js';

/** `npm run test-clickhouse-server -- --port N --path DIR [--host H]`: the test fixture on its own. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8123' },
    path: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
  },
});
if (!values.path) {
  process.stderr.write('usage: npm run test-clickhouse-server -- --port N --path DIR [--host H]\n');
  process.exit(2);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`--port must be a port number, not ${values.port}\n`);
  process.exit(2);
}
const server = await startChdbHttpServer({ path: values.path, port, host: values.host });
process.stdout.write(`a ClickHouse-compatible test server (chDB) listens on ${server.url}, data in ${values.path}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
