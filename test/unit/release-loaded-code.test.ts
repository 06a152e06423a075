import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanCodeMappings } from '../../src/util/release-loaded-code.js';

/** One mapping of `/proc/PID/smaps`, with the fields that matter here. */
function mapping(range: string, permissions: string, name: string, anonymousKb: number, swapKb = 0): string {
  return [
    `${range} ${permissions} 00000000 fe:01 1234${name === '' ? '' : `                      ${name}`}`,
    'Size:               2048 kB',
    'Rss:                1024 kB',
    `Anonymous:          ${anonymousKb} kB`,
    'AnonHugePages:          0 kB',
    `Swap:               ${swapKb} kB`,
    'VmFlags: rd mr mw me',
  ].join('\n');
}

test('only private, read-only file mappings whose pages all match the file are cleared', () => {
  const smaps = [
    mapping('7f0000000000-7f0000200000', 'r-xp', '/opt/lib/libchdb.so', 0),
    mapping('7f0000200000-7f0000400000', 'r--p', '/opt/lib/libchdb.so', 0),
    // Relocated constants: the process's own bytes, which the file does not hold.
    mapping('7f0000400000-7f0000600000', 'r--p', '/opt/lib/libchdb.so', 12),
    // Such a page swapped out: no longer counted as anonymous, still not the file's.
    mapping('7f0000500000-7f0000600000', 'r--p', '/opt/lib/libchdb.so', 0, 8),
    mapping('7f0000600000-7f0000800000', 'rw-p', '/opt/lib/libchdb.so', 0),
    mapping('7f0000800000-7f0000a00000', 'r--s', '/dev/shm/shared', 0),
    mapping('7f0000a00000-7f0000c00000', 'r-xp', '/opt/lib/replaced.so (deleted)', 0),
    mapping('7f0000c00000-7f0000e00000', 'r-xp', '[vdso]', 0),
    mapping('7f0000e00000-7f0001000000', 'r--p', '', 0),
    mapping('55d000000000-55d000100000', 'r-xp', '/usr/bin/node with spaces', 0),
  ].join('\n');
  assert.deepEqual(cleanCodeMappings(smaps), [
    { start: 0x7f0000000000n, end: 0x7f0000200000n },
    { start: 0x7f0000200000n, end: 0x7f0000400000n },
    { start: 0x55d000000000n, end: 0x55d000100000n },
  ]);
});

test('a mapping whose Anonymous or Swap line is missing is not cleared', () => {
  const smaps = [
    '7f0000000000-7f0000200000 r-xp 00000000 fe:01 1234 /opt/lib/a.so',
    'Rss:                   4 kB',
    'Anonymous:              0 kB',
    mapping('7f0000200000-7f0000400000', 'r-xp', '/opt/lib/b.so', 0),
  ].join('\n');
  assert.deepEqual(cleanCodeMappings(smaps), [{ start: 0x7f0000200000n, end: 0x7f0000400000n }]);
});
