import type { SqlResolvers } from '../../src/query/resolvers.js';
import { after, before, describe, test } from 'node:test';
import { DateTime, Settings } from 'luxon';
import { projectClock } from '../../src/insights/actors/analysis-inputs.js';
import { parseInsightFilter, type RawInput } from '../../src/insights/filter-model.js';
import { parseCorrelationFilter } from '../../src/insights/funnels/correlation-filter.js';
import { CorrelationRunner } from '../../src/insights/funnels/correlation-runner.js';
import { parseFunnelFilter } from '../../src/insights/funnels/funnel-filter.js';
import { FunnelRunner } from '../../src/insights/funnels/funnel-runner.js';
import { parseLifecycleFilter } from '../../src/insights/lifecycle/lifecycle-filter.js';
import { LifecycleRunner } from '../../src/insights/lifecycle/lifecycle-runner.js';
import { parsePathFilter } from '../../src/insights/paths/path-filter.js';
import { PathRunner } from '../../src/insights/paths/path-runner.js';
import { parseRetentionFilter } from '../../src/insights/retention/retention-filter.js';
import { RetentionRunner } from '../../src/insights/retention/retention-runner.js';
import { parseStickinessFilter } from '../../src/insights/stickiness/stickiness-filter.js';
import { StickinessRunner } from '../../src/insights/stickiness/stickiness-runner.js';
import { TrendService } from '../../src/insights/trends/trend-service.js';
import type { Project } from '../../src/projects/project.js';
import { noActions, noCohorts } from '../../src/query/resolvers.js';
import type { Warehouse } from '../../src/storage/warehouse/warehouse.js';
import { formatQueries, RecordingWarehouse, SqlSnapshots } from '../support/sql-snapshot.js';

/**
 * Snapshots of the SQL (and bound parameters) each insight runner sends to the warehouse for a
 * representative set of legacy filters, in test/snapshots/insights/<kind>-<case>.sql, so a
 * review shows how generated SQL changes. The filters are read by the parsers the legacy
 * endpoints use, at a fixed time in UTC. After changing SQL on purpose, rewrite the files:
 *   npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js
 */

const UPDATE_COMMAND = 'npm run build && UPDATE_SNAPSHOTS=1 node --test dist/test/unit/insight-sql-snapshots.test.js';
const SNAPSHOTS = new SqlSnapshots('test/snapshots/insights', UPDATE_COMMAND);

const NOW = DateTime.fromISO('2026-01-15T12:00:00Z', { zone: 'UTC' });

const PROJECT: Project = {
  id: 1,
  uuid: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  organizationId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c',
  name: 'SQL snapshots',
  apiToken: 'phc_sql_snapshots',
  timezone: 'UTC',
  weekStartDay: 0,
  testAccountFilters: [],
  personDisplayNameProperties: null,
  ingestedEvent: true,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
};

const RESOLVERS: SqlResolvers = { cohorts: noCohorts, actions: noActions };

const PAGEVIEW = { id: '$pageview', type: 'events', order: 0 };
const SIGNUP = { id: 'sign up', type: 'events', order: 1 };
const PAID = { id: 'paid', type: 'events', order: 2 };
const WEEK = { date_from: '2026-01-08', date_to: '2026-01-15' };

interface SqlCase {
  /** The snapshot file's name: <kind>-<case>. */
  name: string;
  /** The legacy request's filter, as the endpoint reads it (merged query string and body). */
  input: RawInput;
  /** The rows of the n-th warehouse read, where the runner needs them to build its next query. */
  answers?: object[][];
  run(warehouse: Warehouse, input: RawInput): Promise<unknown>;
}

const trends = (warehouse: Warehouse, input: RawInput) => new TrendService(warehouse, RESOLVERS).run(PROJECT, parseInsightFilter(input), { now: NOW });
const funnels = (warehouse: Warehouse, input: RawInput) => new FunnelRunner(warehouse, RESOLVERS).run(PROJECT, parseFunnelFilter(input), { now: NOW });
const retention = (warehouse: Warehouse, input: RawInput) =>
  new RetentionRunner(warehouse, RESOLVERS).run(PROJECT, parseRetentionFilter(input, projectClock(PROJECT, NOW)));
const lifecycle = (warehouse: Warehouse, input: RawInput) =>
  new LifecycleRunner(warehouse, RESOLVERS).run({ project: PROJECT, filter: parseLifecycleFilter(input).lifecycle, now: NOW });
const stickiness = (warehouse: Warehouse, input: RawInput) =>
  new StickinessRunner(warehouse, RESOLVERS).run({ project: PROJECT, filter: parseStickinessFilter(input).stickiness, now: NOW });
// The path runner reads the time from luxon's clock, which the suite pins to NOW.
const paths = (warehouse: Warehouse, input: RawInput) => new PathRunner(warehouse, RESOLVERS).run(PROJECT, parsePathFilter(input));
const correlation = (warehouse: Warehouse, input: RawInput) =>
  new CorrelationRunner(warehouse, new FunnelRunner(warehouse, RESOLVERS)).run(PROJECT, parseCorrelationFilter(input), { now: NOW });

const FUNNEL = { events: [PAGEVIEW, SIGNUP, PAID], ...WEEK };

const CASES: SqlCase[] = [
  { name: 'trends-total', input: { events: [{ ...PAGEVIEW, math: 'total' }], ...WEEK }, run: trends },
  { name: 'trends-dau', input: { events: [{ ...PAGEVIEW, math: 'dau' }], date_from: '-7d', interval: 'day' }, run: trends },
  {
    name: 'trends-breakdown-event-property',
    input: { events: [PAGEVIEW], ...WEEK, breakdown: '$browser', breakdown_type: 'event' },
    run: trends,
  },
  {
    // A sum's breakdown values are queried first; the series query then buckets by them.
    name: 'trends-breakdown-sum',
    input: { events: [{ ...PAID, math: 'sum', math_property: 'amount' }], ...WEEK, breakdown: '$browser', breakdown_type: 'event' },
    answers: [[{ value: 'Chrome' }, { value: 'Safari' }]],
    run: trends,
  },
  { name: 'trends-formula', input: { events: [PAGEVIEW, SIGNUP], ...WEEK, formula: 'A + B' }, run: trends },
  {
    name: 'trends-person-property-filter',
    input: { events: [PAGEVIEW], ...WEEK, interval: 'week', properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'person' }] },
    run: trends,
  },
  { name: 'funnels-ordered', input: FUNNEL, run: funnels },
  { name: 'funnels-strict', input: { ...FUNNEL, funnel_order_type: 'strict' }, run: funnels },
  { name: 'funnels-unordered', input: { ...FUNNEL, funnel_order_type: 'unordered' }, run: funnels },
  { name: 'funnels-breakdown', input: { ...FUNNEL, breakdown: '$browser', breakdown_type: 'event' }, run: funnels },
  {
    // Step attribution queries the breakdown values first.
    name: 'funnels-breakdown-step-attribution',
    input: { ...FUNNEL, breakdown: 'plan', breakdown_type: 'person', breakdown_attribution_type: 'step', breakdown_attribution_value: 1 },
    answers: [[{ value: ['pro'] }, { value: ['free'] }]],
    run: funnels,
  },
  {
    name: 'funnels-exclusion',
    input: { ...FUNNEL, exclusions: [{ id: 'cancel', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }] },
    run: funnels,
  },
  {
    name: 'funnels-time-to-convert',
    input: { ...FUNNEL, funnel_viz_type: 'time_to_convert', funnel_from_step: 0, funnel_to_step: 2, bin_count: 10 },
    run: funnels,
  },
  { name: 'funnels-trends', input: { ...FUNNEL, funnel_viz_type: 'trends', interval: 'day' }, run: funnels },
  { name: 'retention-recurring', input: { target_entity: PAGEVIEW, retention_type: 'retention_recurring', period: 'Day', total_intervals: 7 }, run: retention },
  {
    name: 'retention-first-time',
    input: { target_entity: SIGNUP, returning_entity: PAGEVIEW, retention_type: 'retention_first_time', period: 'Week', total_intervals: 5 },
    run: retention,
  },
  {
    name: 'retention-breakdown',
    input: { target_entity: PAGEVIEW, period: 'Day', total_intervals: 7, breakdowns: [{ type: 'person', property: 'os' }], breakdown_type: 'person' },
    run: retention,
  },
  { name: 'lifecycle', input: { events: [PAGEVIEW], date_from: '-7d', interval: 'day' }, run: lifecycle },
  { name: 'stickiness', input: { events: [PAGEVIEW, SIGNUP], ...WEEK, interval: 'day' }, run: stickiness },
  { name: 'paths', input: { include_event_types: ['$pageview'], date_from: '-7d' }, run: paths },
  { name: 'paths-start-point', input: { include_event_types: ['$pageview'], ...WEEK, start_point: '/pricing', step_limit: 4 }, run: paths },
  {
    // Totals with successes and failures, so the runner goes on to the correlated events.
    name: 'correlation-events',
    input: { ...FUNNEL, funnel_correlation_type: 'events', funnel_correlation_exclude_event_names: ['$autocapture'] },
    answers: [[{ success_total: 3, failure_total: 2 }]],
    run: correlation,
  },
];

describe('insight SQL snapshots (test/snapshots/insights)', () => {
  // Runners that take no clock read luxon's: pinned, so every relative date resolves the same.
  const clock = Settings.now;
  before(() => {
    Settings.now = () => NOW.toMillis();
  });
  after(() => {
    Settings.now = clock;
  });

  for (const sqlCase of CASES) {
    test(sqlCase.name, async () => {
      const warehouse = new RecordingWarehouse(sqlCase.answers);
      await sqlCase.run(warehouse, sqlCase.input);
      const header = [
        `${sqlCase.name}: the warehouse queries of this legacy filter, at ${NOW.toISO()}`,
        JSON.stringify(sqlCase.input),
        `Rewrite: ${UPDATE_COMMAND}`,
      ];
      SNAPSHOTS.check(sqlCase.name, formatQueries(header.join('\n'), warehouse.calls));
    });
  }

  test('every snapshot file belongs to a case', () => {
    SNAPSHOTS.checkNoneObsolete(CASES.map((sqlCase) => sqlCase.name));
  });
});
