import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`The data directory ${dataDir} is in use by a running Tally server (pid ${pid}). ` + 'Stop the server first, or do this through the HTTP API.');
  }
}

export const LOCK_FILE = 'tally.lock';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * An exclusive hold on the embedded data directory: a lock file naming the holder's pid, created
 * atomically. A lock left by a process that died (kill -9, power loss) is taken over, so a crash
 * never needs manual clean-up.
 */
export class DataDirLock {
  private constructor(private readonly file: string) {}

  static acquire(dataDir: string): DataDirLock {
    fs.mkdirSync(dataDir, { recursive: true });
    const file = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const fd = fs.openSync(file, 'wx');
        fs.writeSync(fd, String(process.pid));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        return new DataDirLock(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number.parseInt(readOrEmpty(file), 10);
      if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(dataDir, holder);
      }
      fs.rmSync(file, { force: true });
    }
    throw new Error(`Could not take the lock on ${dataDir}`);
  }

  release(): void {
    if (readOrEmpty(this.file) === String(process.pid)) fs.rmSync(this.file, { force: true });
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}
