import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLI, cliNodeFlags } from '../support/tally.js';

test('npm start runs the CLI with exactly the Node flags of its shebang', () => {
  const packageJson = JSON.parse(fs.readFileSync(path.resolve(path.dirname(CLI), '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.deepEqual(cliNodeFlags(), ['--max-semi-space-size=32', '--single-threaded-gc']);
  assert.equal(packageJson.scripts.start, `node ${cliNodeFlags().join(' ')} dist/src/cli.js serve`);
});
