import fs from 'node:fs';

/** `madvise`'s advice to drop a range's pages; a file mapping's come back from the file when touched. */
const MADV_DONTNEED = 4;

/** A mapping of `/proc/self/smaps` that `madvise` may clear. */
interface CodeMapping {
  start: bigint;
  end: bigint;
}

const MAPPING_HEADER = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s+(.*)$/;
const FIELD = /^(\w+):\s+(\d+) kB$/;

/**
 * The read-only, private mappings of files whose pages all still match the file: executable code
 * and constants of the binary and its libraries. A page the process changed (relocated data, any
 * copy-on-write page) is counted as anonymous memory, or as swap once swapped out; a mapping
 * holding any such page is left alone, since clearing it would bring the file's bytes back in
 * place of the process's.
 */
export function cleanCodeMappings(smaps: string): CodeMapping[] {
  const mappings: CodeMapping[] = [];
  let current: (CodeMapping & { fields: Map<string, number> }) | null = null;
  const finish = () => {
    if (current && current.fields.get('Anonymous') === 0 && current.fields.get('Swap') === 0) mappings.push({ start: current.start, end: current.end });
    current = null;
  };
  for (const line of smaps.split('\n')) {
    const header = MAPPING_HEADER.exec(line);
    if (header) {
      finish();
      const [, start, end, permissions, name] = header;
      const readOnlyPrivateFile = /^r-.p$/.test(permissions!) && name!.startsWith('/') && !name!.endsWith(' (deleted)');
      if (readOnlyPrivateFile) current = { start: BigInt(`0x${start}`), end: BigInt(`0x${end}`), fields: new Map() };
      continue;
    }
    const field = FIELD.exec(line);
    if (current && field) current.fields.set(field[1]!, Number(field[2]));
  }
  finish();
  return mappings;
}

/**
 * Gives the kernel back the pages of loaded code that start-up touched, and returns how many bytes
 * of mappings it cleared (0 where Linux's `/proc` or glibc's `madvise` are not to be had). The
 * embedded ClickHouse engine runs through about 160 MB of its library while it starts (registering
 * every function, format and table engine), most of which it never runs again; those pages would
 * stay in the process's resident set, and the kernel keeps mapped code resident in preference to
 * other pages. Serving touches a fraction of them again; those come back from the page cache on
 * first use.
 */
export async function releaseLoadedCode(): Promise<number> {
  if (process.platform !== 'linux') return 0;
  let smaps: string;
  try {
    smaps = fs.readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return 0;
  }
  const madvise = await libcMadvise();
  if (!madvise) return 0;
  let cleared = 0;
  try {
    for (const { start, end } of cleanCodeMappings(smaps)) {
      if (madvise(start, Number(end - start), MADV_DONTNEED) === 0) cleared += Number(end - start);
    }
  } catch {
    // Only memory is at stake: pages not cleared stay resident, and the server serves as well.
  }
  return cleared;
}

type Madvise = (address: bigint, length: number, advice: number) => number;

async function libcMadvise(): Promise<Madvise | null> {
  try {
    // Loaded here, not with the module: a system without its native part still serves.
    const { default: koffi } = await import('koffi');
    return koffi.load('libc.so.6').func('int madvise(uintptr_t addr, size_t length, int advice)') as Madvise;
  } catch {
    // Not glibc (musl, another system): the pages stay, as they would without this.
    return null;
  }
}
