// Runs every compiled test file with node's test runner (`npm test` builds first, in pretest).
// With TEST_DATABASE_URL (a PostgreSQL server where databases may be created, as .ci/run sets
// up), the catalog tests include PostgreSQL, and the end-to-end tests run a second time with
// every test server on a fresh PostgreSQL catalog.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function findTests(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return findTests(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

function run(label, files, env = {}) {
  console.log(`\n# ${label}: ${files.length} test files`);
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return result.status ?? 1;
}

const filter = process.argv[2];
const files = findTests('dist/test')
  .filter((file) => !filter || file.includes(filter))
  .sort();
if (files.length === 0) {
  console.error('no test files found under dist/test');
  process.exit(1);
}

let status = run('embedded stores (SQLite catalog, chDB warehouse)', files);
const postgres = process.env.TEST_DATABASE_URL;
const endToEnd = files.filter((file) => file.includes(`${path.sep}e2e${path.sep}`) || file.includes(`${path.sep}sdk${path.sep}`));
if (postgres && endToEnd.length > 0) {
  status = run('end-to-end again on a PostgreSQL catalog', endToEnd, { TEST_E2E_POSTGRES_URL: postgres }) || status;
} else if (!postgres) {
  console.log('\n# end-to-end on PostgreSQL skipped: TEST_DATABASE_URL is not set');
}
process.exit(status);
