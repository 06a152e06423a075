import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { tempDataDir } from '../support/tally.js';

const WAREHOUSE_MODULE = new URL('../../src/storage/warehouse/chdb-warehouse.js', import.meta.url).href;

// jemalloc reads its configuration when libchdb loads: what counts is the environment at the
// moment `chdb` itself is evaluated, which a preload observes as the module is compiled.
const directory = tempDataDir('tally-chdb-allocator-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));
const observer = path.join(directory, 'observe-chdb-load.cjs');
fs.writeFileSync(
  observer,
  `const Module = require('node:module');
const compile = Module._extensions['.js'];
Module._extensions['.js'] = function (module, filename) {
  if (filename.endsWith(require('node:path').join('node_modules', 'chdb', 'index.js'))) {
    process.stdout.write(JSON.stringify({ atLoad: process.env.JE_MALLOC_CONF ?? null }) + '\\n');
  }
  return compile.call(this, module, filename);
};
`,
);

function allocatorConfigAtChdbLoad(env: Record<string, string>): string | null {
  const inherited = { ...process.env };
  delete inherited.JE_MALLOC_CONF;
  const result = spawnSync(process.execPath, ['--require', observer, '--input-type=module', '-e', `await import(${JSON.stringify(WAREHOUSE_MODULE)});`], {
    env: { ...inherited, ...env },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `chdb loaded once: ${result.stdout}`);
  return (JSON.parse(lines[0]!) as { atLoad: string | null }).atLoad;
}

test('chDB loads with large blocks returned to the system at once', () => {
  assert.equal(allocatorConfigAtChdbLoad({}), 'oversize_threshold:1048576');
});

test("an operator's own JE_MALLOC_CONF is what chDB loads with", () => {
  assert.equal(allocatorConfigAtChdbLoad({ JE_MALLOC_CONF: 'dirty_decay_ms:0' }), 'dirty_decay_ms:0');
  assert.equal(allocatorConfigAtChdbLoad({ JE_MALLOC_CONF: '' }), '');
});
