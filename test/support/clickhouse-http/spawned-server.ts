import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.js');

export interface SpawnedChdbHttpServer {
  url: string;
  /** The server's process id, for CPU and memory readings. */
  pid: number;
  stop(): Promise<void>;
}

/** The test ClickHouse server in a process of its own (chDB holds one data directory per process), on a free port. */
export async function spawnChdbHttpServer(directory: string): Promise<SpawnedChdbHttpServer> {
  const child = spawn(process.execPath, [MAIN, '--port', '0', '--path', directory], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const listening = /listens on (http:\/\/[^\s,]+)/.exec(output);
      if (listening) resolve(listening[1]!);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code) => reject(new Error(`the test ClickHouse server exited (${code}) before listening:\n${output}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
