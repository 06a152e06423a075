import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a server holding the data directory tells the CLI how to reach it: its pid, a URL on which
 * it answers, and a token that authorises the commands that go through it (`tally backup`). The
 * file can be read by whoever can read the data directory (mode 0600, the server's user), which
 * already gives access to all the data: the token grants nothing more.
 */
export const SERVER_FILE = 'tally.server.json';

export interface ServerFile {
  pid: number;
  url: string;
  token: string;
}

/** A random token for `publishServer`: 256 bits. */
export function newServerToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * A URL the CLI can connect to for a server listening on `host`: the loopback address when it
 * listens on every interface.
 */
export function localUrl(host: string, port: number): string {
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' || host === '[::]' ? '::1' : host;
  return `http://${local.includes(':') && !local.startsWith('[') ? `[${local}]` : local}:${port}`;
}

/** Writes the server file atomically, readable by the owner only; returns a function that removes it. */
export function publishServer(dataDir: string, server: Omit<ServerFile, 'pid'>): () => void {
  const file = path.join(dataDir, SERVER_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify({ pid: process.pid, ...server }), { mode: 0o600 });
  fs.renameSync(temporary, file);
  return () => {
    if (readServerFile(dataDir)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

/** The server file of `dataDir`; null when there is none or it cannot be read as one. */
export function readServerFile(dataDir: string): ServerFile | null {
  let value: unknown;
  try {
    value = JSON.parse(fs.readFileSync(path.join(dataDir, SERVER_FILE), 'utf8'));
  } catch {
    return null;
  }
  const file = value as Partial<ServerFile> | null;
  if (!file || typeof file.pid !== 'number' || typeof file.url !== 'string' || typeof file.token !== 'string') return null;
  return { pid: file.pid, url: file.url, token: file.token };
}
