import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { tempDataDir, TallyServer } from '../support/tally.js';

const RELEASE_MODULE = new URL('../../src/util/release-loaded-code.js', import.meta.url).href;
const CHDB_MODULE = new URL('../../../node_modules/chdb/index.js', import.meta.url).href;

/** Resident kB of the embedded engine's library in a process, summed over its mappings. */
function chdbResidentKb(smaps: string): number {
  let inLibrary = false;
  let total = 0;
  for (const line of smaps.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inLibrary = line.endsWith('/libchdb.so');
    else if (inLibrary && line.startsWith('Rss:')) total += Number(/(\d+) kB/.exec(line)![1]);
  }
  return total;
}

const directory = tempDataDir('tally-release-code-');
after(() => fs.rmSync(directory, { recursive: true, force: true }));

test("the engine's start-up code leaves the resident set, and the engine still answers", () => {
  const script = `
    import fs from 'node:fs';
    import { Session } from ${JSON.stringify(CHDB_MODULE)};
    import { releaseLoadedCode } from ${JSON.stringify(RELEASE_MODULE)};
    const resident = ${chdbResidentKb.toString()};
    const session = new Session(${JSON.stringify(directory)});
    session.query('CREATE TABLE t (n UInt64, s String) ENGINE = MergeTree ORDER BY n');
    const before = resident(fs.readFileSync('/proc/self/smaps', 'utf8'));
    const released = await releaseLoadedCode();
    const afterRelease = resident(fs.readFileSync('/proc/self/smaps', 'utf8'));
    session.query('INSERT INTO t SELECT number, toString(number * 7) FROM numbers(100000)');
    const answer = String(session.query('SELECT count(), sum(n), sum(length(s)) FROM t', 'JSONCompact'));
    process.stdout.write(JSON.stringify({ before, released, afterRelease, data: JSON.parse(answer).data }));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  const { before, released, afterRelease, data } = JSON.parse(result.stdout) as { before: number; released: number; afterRelease: number; data: unknown };
  assert.ok(before > 50_000, `chDB's start-up made ${before} kB of its library resident`);
  assert.ok(released > before * 1024, `${released} bytes of mappings cleared`);
  assert.ok(afterRelease < before / 10, `${afterRelease} kB of ${before} kB still resident`);
  const digits = Array.from({ length: 100_000 }, (_, n) => String(n * 7).length).reduce((sum, length) => sum + length, 0);
  assert.deepEqual(data, [[100_000, 4_999_950_000, digits]]);
});

test('a running server holds little of the engine resident once it has started', async (t) => {
  const server = await TallyServer.start();
  t.after(() => server.dispose());
  const health = await fetch(`${server.url}/_health`);
  assert.equal(health.status, 200);
  const resident = chdbResidentKb(fs.readFileSync(`/proc/${server.pid}/smaps`, 'utf8'));
  // Start-up alone makes about 160 MB of it resident.
  assert.ok(resident < 100_000, `${resident} kB of the engine's library resident`);
});
