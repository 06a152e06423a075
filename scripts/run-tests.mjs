// Runs every compiled test file with node's test runner (`npm test` builds first, in pretest).
// With TEST_DATABASE_URL (a PostgreSQL server where databases may be created, as .ci/run sets
// up), the catalog tests include PostgreSQL, and the end-to-end tests run a second time with
// every test server on a fresh PostgreSQL catalog and a database of its own on the
// ClickHouse-compatible test server (chDB behind ClickHouse's HTTP interface), so each backend
// runs every end-to-end test. The mixed pair (PostgreSQL catalog, embedded chDB warehouse) adds
// nothing to the queries' or the catalog's code paths, so it runs only the files about the
// process and its data directory, where that pair is a configuration of its own.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

async function run(label, files, env = {}) {
  console.log(`\n# ${label}: ${files.length} test files`);
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}

/** The end-to-end tests with PostgreSQL and a ClickHouse-compatible test server of their own. */
async function runOnClickhouseServer(label, files, env) {
  const { spawnChdbHttpServer } = await import('../dist/test/support/clickhouse-http/spawned-server.js');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'tally-test-clickhouse-'));
  const server = await spawnChdbHttpServer(directory);
  try {
    return await run(label, files, { ...env, TEST_E2E_CLICKHOUSE_URL: server.url });
  } finally {
    await server.stop();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

const filter = process.argv[2];
const files = findTests('dist/test')
  .filter((file) => !filter || file.includes(filter))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}

let status = await run('embedded stores (SQLite catalog, chDB warehouse)', files);
const postgres = process.env.TEST_DATABASE_URL;
const endToEnd = files.filter((file) => file.includes(`${path.sep}e2e${path.sep}`) || file.includes(`${path.sep}sdk${path.sep}`));
const processAndDataDirectory = ['bootstrap', 'capture-crash', 'cli'].map((name) => `${path.sep}e2e${path.sep}${name}.test.js`);
const mixedBackends = endToEnd.filter((file) => processAndDataDirectory.some((suffix) => file.endsWith(suffix)));
if (postgres && endToEnd.length > 0) {
  status =
    (await runOnClickhouseServer('end-to-end again on a PostgreSQL catalog and the ClickHouse test server', endToEnd, { TEST_E2E_POSTGRES_URL: postgres })) ||
    status;
  if (mixedBackends.length > 0) {
    status =
      (await run('process and data directory on a PostgreSQL catalog with the embedded warehouse', mixedBackends, { TEST_E2E_POSTGRES_URL: postgres })) ||
      status;
  }
} else if (!postgres) {
  console.log('\n# end-to-end on PostgreSQL and the ClickHouse test server skipped: TEST_DATABASE_URL is not set');
}
process.exit(status);
