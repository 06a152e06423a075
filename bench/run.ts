import { parseArgs } from 'node:util';
import { printTable, writeResults, type Measurement } from './report.js';
import { captureSuite } from './suites/capture.js';
import { personsSuite } from './suites/persons.js';
import { trendsSuite } from './suites/trends.js';

const SUITES: Record<string, (options: { events: number }) => Promise<Measurement[]>> = {
  capture: captureSuite,
  trends: trendsSuite,
  persons: personsSuite,
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { events: { type: 'string', default: '1000000' } },
});
const events = Number(values.events);
if (!Number.isInteger(events) || events <= 0) {
  console.error('--events must be a positive integer');
  process.exit(2);
}
const chosen = positionals.length > 0 ? positionals : Object.keys(SUITES);
for (const name of chosen) {
  if (!SUITES[name]) {
    console.error(`unknown suite "${name}"; suites: ${Object.keys(SUITES).join(', ')}`);
    process.exit(2);
  }
}

const measurements: Measurement[] = [];
for (const name of chosen) {
  console.error(`\n== ${name} (${events} events)`);
  measurements.push(...(await SUITES[name]!({ events })));
}
console.log(printTable(measurements));
writeResults(measurements);
console.error('\nresults written to bench/results/');
