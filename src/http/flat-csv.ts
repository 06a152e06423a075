import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { stringify } from 'csv-stringify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../errors.js';
import { textOf } from '../util/text.js';

/**
 * CSV the way PostHog's PaginatedCSVRenderer writes it: each row flattened (`properties.email`,
 * `distinct_ids.0`; empty lists and objects give no column; null an empty cell), the header the
 * sorted union of every row's columns, rows ended by CRLF.
 */

export type ResponseFormat = 'json' | 'csv';

/** `?format=csv|json` wins; otherwise `Accept: text/csv` asks for CSV. Another format is DRF's 404. */
export function responseFormat(request: FastifyRequest): ResponseFormat {
  const format = (request.query as Record<string, unknown> | undefined)?.format;
  const requested = Array.isArray(format) ? format[format.length - 1] : format;
  if (requested !== undefined && requested !== '') {
    if (requested === 'csv' || requested === 'json') return requested;
    throw new NotFound();
  }
  return (request.headers.accept ?? '').includes('text/csv') ? 'csv' : 'json';
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return textOf(value);
}

/** One row's columns: nested objects and lists become dotted paths. */
export function flattenRow(value: unknown, column = '', into: Record<string, string> = {}): Record<string, string> {
  const child = (key: string | number) => (column === '' ? String(key) : `${column}.${key}`);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) flattenRow(item, child(index), into);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) flattenRow(item, child(key), into);
  } else {
    into[column] = cellText(value);
  }
  return into;
}

/**
 * Streams rows as CSV with no row cap. The header needs every row's columns, so rows are first
 * spooled (flattened, one JSON line each) to a temporary file while the columns are collected,
 * then streamed from it: memory stays bounded by one row, whatever the row count.
 */
export async function sendCsv(reply: FastifyReply, rows: AsyncIterable<unknown> | Iterable<unknown>): Promise<FastifyReply> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'tally-csv-'));
  const spoolPath = path.join(directory, 'rows.jsonl');
  const cleanup = () => rm(directory, { recursive: true, force: true });
  const columns = new Set<string>();
  try {
    const spool = createWriteStream(spoolPath);
    for await (const row of rows) {
      const flat = flattenRow(row);
      for (const column of Object.keys(flat)) columns.add(column);
      if (!spool.write(`${JSON.stringify(flat)}\n`)) await once(spool, 'drain');
    }
    spool.end();
    await once(spool, 'finish');
  } catch (error) {
    await cleanup();
    throw error;
  }
  const header = [...columns].sort();
  const records = Readable.from(spooledRecords(spoolPath, header, columns.size > 0));
  const csv = records.pipe(stringify({ record_delimiter: 'windows', quoted_match: /[\r\n]/ }));
  csv.once('close', () => void cleanup());
  records.once('error', (error) => csv.destroy(error));
  return reply.type('text/csv; charset=utf-8').send(csv);
}

async function* spooledRecords(spoolPath: string, header: string[], hasColumns: boolean): AsyncGenerator<string[]> {
  if (!hasColumns) return;
  yield header;
  const lines = createInterface({ input: createReadStream(spoolPath), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    const flat = JSON.parse(line) as Record<string, string>;
    yield header.map((column) => flat[column] ?? '');
  }
}
