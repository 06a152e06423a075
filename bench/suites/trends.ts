import { generateEvents } from '../generator.js';
import { loadedServer } from '../loaded-server.js';
import { comparisons, loadMeasurement, peakMeasurements, type Measurement } from '../report.js';
import type { SuiteOptions } from './suite.js';
import { timeApiAgainstRaw, timeFresh, type ApiRawCase } from '../timing.js';
import { callApi } from '../api-client.js';

interface TrendQuery {
  name: string;
  body: Record<string, unknown>;
  /**
   * The hand-written ClickHouse SQL for the same aggregation, with the same person semantics, as
   * an expert writes it: the project, time and event conditions in PREWHERE, which ClickHouse
   * otherwise fills with every condition, JSON ones too.
   */
  raw: string;
}

const LAST_30_DAYS = `team_id = 1 AND timestamp >= toStartOfDay(now('UTC') - INTERVAL 30 DAY) AND timestamp <= now('UTC')`;
const PERSON_OF_EVENT = `(SELECT distinct_id, argMax(person_id, version) AS pid FROM person_distinct_ids WHERE team_id = 1 GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0)`;
const PERSONS = `(SELECT id, argMax(properties, version) AS props FROM persons WHERE team_id = 1 GROUP BY id HAVING argMax(is_deleted, version) = 0)`;

const QUERIES: TrendQuery[] = [
  {
    name: 'total per day, one event, 30 days',
    body: { events: [{ id: '$pageview' }], date_from: '-30d' },
    raw: `SELECT toStartOfDay(timestamp, 'UTC') AS day, count() FROM events PREWHERE ${LAST_30_DAYS} AND event = '$pageview' GROUP BY day ORDER BY day`,
  },
  {
    name: 'dau by $browser',
    body: { events: [{ id: '$pageview', math: 'dau' }], breakdown: '$browser', date_from: '-30d' },
    raw: `SELECT JSONExtractString(properties, '$browser') AS browser, toStartOfDay(timestamp, 'UTC') AS day, uniqExact(coalesce(p.pid, e.person_id))
          FROM events AS e LEFT JOIN ${PERSON_OF_EVENT} AS p ON e.distinct_id = p.distinct_id
          PREWHERE ${LAST_30_DAYS} AND event = '$pageview' GROUP BY browser, day`,
  },
  {
    name: 'event property filter',
    body: { events: [{ id: 'order placed' }], properties: [{ key: 'plan', value: 'pro', type: 'event' }], date_from: '-30d' },
    raw: `SELECT toStartOfDay(timestamp, 'UTC') AS day, count() FROM events PREWHERE ${LAST_30_DAYS} AND event = 'order placed'
          WHERE JSONExtractString(properties, 'plan') = 'pro' GROUP BY day ORDER BY day`,
  },
  {
    name: 'person property filter',
    body: { events: [{ id: '$pageview' }], properties: [{ key: 'plan', value: 'pro', type: 'person' }], date_from: '-30d' },
    raw: `SELECT toStartOfDay(timestamp, 'UTC') AS day, count() FROM events AS e
          LEFT JOIN ${PERSON_OF_EVENT} AS p ON e.distinct_id = p.distinct_id
          LEFT JOIN ${PERSONS} AS person ON person.id = coalesce(p.pid, e.person_id)
          PREWHERE ${LAST_30_DAYS} AND event = '$pageview' WHERE JSONExtractString(person.props, 'plan') = 'pro' GROUP BY day ORDER BY day`,
  },
  {
    name: 'formula A/B',
    body: { events: [{ id: '$pageview' }, { id: 'order placed' }], formula: 'A/B', date_from: '-30d' },
    raw: `SELECT toStartOfDay(timestamp, 'UTC') AS day, countIf(event = '$pageview') / countIf(event = 'order placed') FROM events
          PREWHERE ${LAST_30_DAYS} AND event IN ('$pageview', 'order placed') GROUP BY day ORDER BY day`,
  },
  {
    name: 'weekly_active',
    body: { events: [{ id: '$pageview', math: 'weekly_active' }], date_from: '-30d' },
    raw: `SELECT day, uniqExact(person) FROM (
            SELECT coalesce(p.pid, e.person_id) AS person, toStartOfDay(timestamp, 'UTC') AS active_day FROM events AS e
            LEFT JOIN ${PERSON_OF_EVENT} AS p ON e.distinct_id = p.distinct_id
            PREWHERE team_id = 1 AND event = '$pageview' AND timestamp >= toStartOfDay(now('UTC') - INTERVAL 37 DAY))
          ARRAY JOIN arrayMap(offset -> active_day + toIntervalDay(offset), range(7)) AS day
          WHERE day >= toStartOfDay(now('UTC') - INTERVAL 30 DAY) AND day <= now('UTC') GROUP BY day ORDER BY day`,
  },
];

/**
 * The trends suite: data through capture (90 days, 100k persons, 20 event names), then each
 * query through the API and as hand-written SQL on the same warehouse, fresh from the load (see
 * timeFresh) and settled (see timeApiAgainstRaw).
 */
export async function trendsSuite(options: SuiteOptions): Promise<Measurement[]> {
  const cases: ApiRawCase[] = QUERIES.map((query) => ({
    name: query.name,
    api: async (running) => {
      const response = await callApi(running, 'POST', '/api/projects/1/insights/trend/', query.body);
      if (response.status !== 200) throw new Error(`${query.name}: ${response.status} ${response.text}`);
    },
    raw: (warehouse) => warehouse.query(query.raw),
  }));
  const { server, seconds, loadPeakMb, reusedFrom, fresh } = await loadedServer(
    'trends',
    options.events,
    options.dataDir,
    () => generateEvents({ events: options.events, distinctIds: 100_000, days: 90, identifyShare: 0.1, seed: 7, end: new Date() }),
    'loading through capture',
    (running) => timeFresh(running, cases),
  );
  const measurements: Measurement[] = [loadMeasurement('trends', `load ${options.events} events through capture`, options.events / seconds, reusedFrom)];
  const settled = await timeApiAgainstRaw(server, cases);
  measurements.push(...comparisons('trends', cases, settled, fresh));
  await (options.dataDir ? server.stop() : server.dispose());
  measurements.push(...peakMeasurements('trends', loadPeakMb, settled.peakMb, reusedFrom));
  return measurements;
}
