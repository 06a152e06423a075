import { parse } from 'csv-parse/sync';
import { ValidationError } from '../errors.js';

/** The distinct ids of an uploaded cohort CSV: the first column of every non-empty row. */
export function csvDistinctIds(file: Buffer): string[] {
  let rows: string[][];
  try {
    rows = parse(file, { bom: true, relax_column_count: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch {
    throw new ValidationError('csv', 'CSV file format is invalid. Please check your file format and try again.');
  }
  const ids = rows.map((row) => row[0] ?? '').filter((id) => id !== '');
  if (ids.length === 0) {
    throw new ValidationError('csv', 'CSV file is empty. Please upload a CSV file with at least one row of data.');
  }
  return ids;
}
