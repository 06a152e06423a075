import { parseSelect } from '../../src/hogql/parser.js';
import { printSelect } from '../../src/hogql/printer.js';
import { SqlParams } from '../../src/query/sql-params.js';
import { generateEvents } from '../generator.js';
import { loadedServer } from '../loaded-server.js';
import { comparisons, loadMeasurement, peakMeasurements, type Measurement } from '../report.js';
import { summarize, timeApiAgainstRaw, timeFresh, type ApiRawCase } from '../timing.js';
import type { SuiteOptions } from './suite.js';
import { callApi } from '../api-client.js';

/** A realistic large HogQL query: ten nested levels, filters at each, and a 1,000-item IN list. */
export function realisticQuery(): string {
  const ids = Array.from({ length: 1000 }, (_, index) => `'user-${index}'`).join(', ');
  let query =
    `SELECT distinct_id, event, timestamp, properties.$browser AS browser, person.properties.plan AS plan FROM events ` +
    `WHERE distinct_id IN (${ids}) AND timestamp > now() - INTERVAL 30 DAY AND properties.$current_url LIKE '%/pricing%'`;
  for (let level = 1; level < 10; level++) {
    query =
      `SELECT distinct_id, event, timestamp, browser, plan, count() OVER (PARTITION BY distinct_id) AS level_${level} ` +
      `FROM (${query}) AS level_${level}_source WHERE browser != 'bot-${level}' OR plan = 'pro'`;
  }
  return `${query} ORDER BY timestamp DESC LIMIT 100`;
}

const PERSON_OF_EVENT = `(SELECT distinct_id, argMax(person_id, version) AS pid FROM person_distinct_ids WHERE team_id = 1 GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0)`;
const PERSONS = `(SELECT id, argMax(properties, version) AS props FROM persons WHERE team_id = 1 GROUP BY id HAVING argMax(is_deleted, version) = 0)`;

const QUERIES = [
  {
    name: 'HogQL: events by name',
    hogql: 'SELECT event, count() FROM events GROUP BY event',
    raw: 'SELECT event, count() FROM events WHERE team_id = 1 GROUP BY event',
  },
  {
    name: 'HogQL: pageviews by person property (person join)',
    hogql: "SELECT person.properties.plan, count() FROM events WHERE event = '$pageview' GROUP BY person.properties.plan",
    raw: `SELECT JSONExtractString(person.props, 'plan') AS plan, count() FROM events AS e
          LEFT JOIN ${PERSON_OF_EVENT} AS p ON e.distinct_id = p.distinct_id
          LEFT JOIN ${PERSONS} AS person ON person.id = coalesce(p.pid, e.person_id)
          WHERE team_id = 1 AND event = '$pageview' GROUP BY plan`,
  },
];

/** Parse and print of the realistic query, in process, a few hundred times. */
function parsePrintMeasurement(): Measurement {
  const text = realisticQuery();
  const samples: number[] = [];
  for (let run = 0; run < 300; run++) {
    const started = performance.now();
    printSelect(parseSelect(text), { params: new SqlParams({ team_id: 1 }), timezone: 'UTC', values: null });
    if (run >= 50) samples.push(performance.now() - started);
  }
  const { median, p95 } = summarize(samples);
  return { suite: 'hogql', name: `parse + print a ${Math.round(text.length / 1024)} KB query (10 levels, 1,000-item IN)`, unit: 'ms', value: median, p95 };
}

/**
 * The HogQL suite: Tally's parser and printer on a large query, then HogQL queries through
 * `/query/` against the same ClickHouse SQL written by hand, on the trends suite's kind of data,
 * fresh from the load and settled.
 */
export async function hogqlSuite(options: SuiteOptions): Promise<Measurement[]> {
  const measurements: Measurement[] = [parsePrintMeasurement()];
  const cases: ApiRawCase[] = QUERIES.map((query) => ({
    name: query.name,
    api: async (running) => {
      const response = await callApi(running, 'POST', '/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: query.hogql } });
      if (response.status !== 200) throw new Error(`${query.name}: ${response.status} ${response.text}`);
    },
    raw: (warehouse) => warehouse.query(query.raw),
  }));
  const { server, seconds, loadPeakMb, reusedFrom, fresh } = await loadedServer(
    'hogql',
    options.events,
    options.dataDir,
    () => generateEvents({ events: options.events, distinctIds: 100_000, days: 90, identifyShare: 0.1, seed: 7, end: new Date() }),
    'loading through capture',
    (running) => timeFresh(running, cases),
  );
  measurements.push(loadMeasurement('hogql', `load ${options.events} events through capture`, options.events / seconds, reusedFrom));
  const settled = await timeApiAgainstRaw(server, cases);
  measurements.push(...comparisons('hogql', cases, settled, fresh));
  await (options.dataDir ? server.stop() : server.dispose());
  measurements.push(...peakMeasurements('hogql', loadPeakMb, settled.peakMb, reusedFrom));
  return measurements;
}
