import fs from 'node:fs';

/** Current and peak resident memory of a process, in MB, from /proc (Linux). */
export function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

/**
 * CPU seconds (user + system) of a /proc stat file; with `children`, those of its ended children
 * that it waited for too (cutime + cstime).
 */
export function statCpuSeconds(statFile: string, children = false): number {
  // Fields after the parenthesised command name; utime and stime are the 14th and 15th of the line, cutime and cstime next.
  const fields = fs.readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
  return ticks / CLOCK_TICKS_PER_SECOND;
}

/** CPU seconds (user + system) a process and its main thread have used, from /proc (Linux). */
export function cpuOf(pid: number): { processSeconds: number; mainThreadSeconds: number } {
  return { processSeconds: statCpuSeconds(`/proc/${pid}/stat`), mainThreadSeconds: statCpuSeconds(`/proc/${pid}/task/${pid}/stat`) };
}

/**
 * CPU seconds (user + system) of a process's threads other than its main one that carry the
 * process's own name, as Node's do (its worker threads, libuv's pool, V8's platform threads),
 * while threads a native library names (chDB's) do not. Threads that ended are not counted.
 */
export function sameNamedThreadsCpuSeconds(pid: number): number {
  const name = fs.readFileSync(`/proc/${pid}/comm`, 'utf8');
  let seconds = 0;
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    if (tid === String(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8') === name) seconds += statCpuSeconds(`/proc/${pid}/task/${tid}/stat`);
    } catch {
      // The thread ended between the listing and the reading.
    }
  }
  return seconds;
}

/** Linux's USER_HZ, 100 on every architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
