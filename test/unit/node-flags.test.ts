import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLI, cliLaunch } from '../support/tally.js';

test('npm start runs the CLI with exactly the environment and Node flags of its shebang', () => {
  const packageJson = JSON.parse(fs.readFileSync(path.resolve(path.dirname(CLI), '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
  const { env, flags } = cliLaunch();
  assert.deepEqual(env, { GLIBC_TUNABLES: 'glibc.malloc.mmap_threshold=1048576' });
  assert.deepEqual(flags, ['--max-semi-space-size=16', '--v8-pool-size=1']);
  assert.equal(packageJson.scripts.start, `GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1048576 node ${flags.join(' ')} dist/src/cli.js serve`);
});
