import path from 'node:path';
import { parseArgs } from 'node:util';
import { printTable, writeResults, type Measurement } from './report.js';
import { captureSuite } from './suites/capture.js';
import { hogqlSuite } from './suites/hogql.js';
import { insightsSuite } from './suites/insights.js';
import { personsSuite } from './suites/persons.js';
import type { SuiteOptions } from './suites/suite.js';
import { trendsSuite } from './suites/trends.js';

const SUITES: Record<string, (options: SuiteOptions) => Promise<Measurement[]>> = {
  capture: captureSuite,
  trends: trendsSuite,
  persons: personsSuite,
  hogql: hogqlSuite,
  insights: insightsSuite,
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    events: { type: 'string', default: '1000000' },
    'data-dir': { type: 'string' },
    postgres: { type: 'string' },
    processes: { type: 'string', default: '1' },
  },
});
const events = Number(values.events);
if (!Number.isInteger(events) || events <= 0) {
  console.error('--events must be a positive integer');
  process.exit(2);
}
const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : undefined;
if (dataDir && (positionals.length !== 1 || positionals[0] === 'capture')) {
  console.error(
    `--data-dir keeps the data of one query suite: name it (${Object.keys(SUITES)
      .filter((name) => name !== 'capture')
      .join(', ')})`,
  );
  process.exit(2);
}
const processes = Number(values.processes);
if (!Number.isInteger(processes) || processes < 1 || processes > 16) {
  console.error('--processes must be an integer from 1 to 16');
  process.exit(2);
}
if ((values.postgres || processes > 1) && (positionals.length !== 1 || positionals[0] !== 'capture' || !values.postgres)) {
  console.error('--postgres URL (and --processes N) load shared stores in the capture suite: `capture --postgres postgres://… --processes 2`');
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
  measurements.push(...(await SUITES[name]!({ events, dataDir, postgres: values.postgres, processes })));
}
console.log(printTable(measurements));
writeResults(measurements);
console.error('\nresults written to bench/results/');
