import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { funnelErrorInQuery, funnelsQueryToFilter } from '../../src/insights/query-nodes/funnels-query.js';
import { funnelsQueryResults } from '../../src/insights/query-nodes/funnels-query-results.js';
import type { SeriesEntity } from '../../src/insights/filter-model.js';
import { EMPTY_PROPERTY_GROUP } from '../../src/query/property-filter-model.js';
import { DateTime } from 'luxon';

const SIGNUP = { kind: 'EventsNode', event: 'sign up' };
const PAID = { kind: 'EventsNode', event: 'paid' };

function funnel(fields: Record<string, unknown> = {}) {
  return { kind: 'FunnelsQuery', series: [SIGNUP, PAID], ...fields };
}

function rejects(node: unknown, attr: string, detail?: string): void {
  assert.throws(
    () => funnelsQueryToFilter(node, 'query.source'),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.attr, attr, error.detail);
      if (detail !== undefined) assert.equal(error.detail, detail);
      return true;
    },
  );
}

describe('FunnelsQuery → legacy funnel filter', () => {
  test('defaults: ordered steps over the last 7 days, a 14-day window, first touch, first to last step', () => {
    const filter = funnelsQueryToFilter(funnel(), 'query');
    assert.deepEqual(
      filter.steps.map((step) => [step.index, step.type, step.id, step.name, step.customName]),
      [
        [0, 'events', 'sign up', 'sign up', null],
        [1, 'events', 'paid', 'paid', null],
      ],
    );
    assert.equal(filter.orderType, 'ordered');
    assert.equal(filter.vizType, 'steps');
    assert.equal(filter.windowSeconds, 14 * 86_400);
    assert.deepEqual(filter.attribution, { kind: 'first_touch' });
    assert.deepEqual([filter.fromStep, filter.toStep, filter.binCount], [0, 1, null]);
    assert.deepEqual(filter.dates, { dateFrom: null, dateTo: null, explicitDate: false, interval: 'day' });
    assert.equal(filter.breakdown, null);
    assert.deepEqual(filter.exclusions, []);
    assert.equal(filter.aggregationGroupTypeIndex, null);
    assert.equal(filter.filterTestAccounts, false);
  });

  test('series of events and actions keep their order, names and property filters (fixed ones ANDed)', () => {
    const filter = funnelsQueryToFilter(
      funnel({
        series: [
          { kind: 'ActionsNode', id: 7, custom_name: 'Paid first', properties: [{ key: '$browser', value: 'Safari' }] },
          { kind: 'EventsNode', event: null, math: 'total' },
          { kind: 'EventsNode', event: 'paid', fixedProperties: [{ key: 'plan', value: 'pro', type: 'person' }], math: 'dau' },
        ],
      }),
      'query',
    );
    assert.deepEqual(
      filter.steps.map((step) => [step.index, step.type, step.id, step.customName]),
      [
        [0, 'actions', 7, 'Paid first'],
        [1, 'events', null, null],
        [2, 'events', 'paid', null],
      ],
    );
    assert.deepEqual(filter.steps[0]!.properties, {
      kind: 'group',
      type: 'AND',
      values: [{ kind: 'filter', type: 'event', key: '$browser', value: 'Safari', operator: 'exact', groupTypeIndex: null, negation: false }],
    });
    assert.equal(filter.steps[1]!.properties.values.length, 0);
    assert.deepEqual(filter.steps[2]!.properties.values[0], {
      kind: 'filter',
      type: 'person',
      key: 'plan',
      value: 'pro',
      operator: 'exact',
      groupTypeIndex: null,
      negation: false,
    });
  });

  test('every funnelsFilter field, dates, interval, properties, test accounts and groups', () => {
    const filter = funnelsQueryToFilter(
      funnel({
        series: [SIGNUP, PAID, { kind: 'EventsNode', event: 'buy' }],
        dateRange: { date_from: '2021-05-01', date_to: '2021-05-07', explicitDate: true },
        interval: 'week',
        properties: { type: 'AND', values: [{ key: '$browser', value: 'Chrome' }] },
        filterTestAccounts: true,
        aggregation_group_type_index: 1,
        funnelsFilter: {
          funnelOrderType: 'strict',
          funnelVizType: 'time_to_convert',
          funnelWindowInterval: 3,
          funnelWindowIntervalUnit: 'hour',
          funnelFromStep: 1,
          funnelToStep: 2,
          binCount: 7,
          layout: 'horizontal',
          funnelStepReference: 'previous',
          hiddenLegendBreakdowns: ['x'],
          useUdf: true,
        },
      }),
      'query',
    );
    assert.deepEqual(filter.dates, { dateFrom: '2021-05-01', dateTo: '2021-05-07', explicitDate: true, interval: 'week' });
    assert.deepEqual([filter.orderType, filter.vizType, filter.windowSeconds], ['strict', 'time_to_convert', 3 * 3600]);
    assert.deepEqual([filter.fromStep, filter.toStep, filter.binCount], [1, 2, 7]);
    assert.deepEqual([filter.filterTestAccounts, filter.aggregationGroupTypeIndex], [true, 1]);
    assert.equal(filter.properties.values.length, 1);
    const month = funnelsQueryToFilter(funnel({ funnelsFilter: { funnelWindowInterval: 2, funnelWindowIntervalUnit: 'month' } }), 'query');
    assert.equal(month.windowSeconds, 2 * 31 * 86_400);
  });

  test('breakdowns: one property, several, cohorts, a group property; step attribution', () => {
    const event = funnelsQueryToFilter(funnel({ breakdownFilter: { breakdown: '$browser', breakdown_limit: 3 } }), 'query');
    assert.deepEqual(event.breakdown, { type: 'event', properties: ['$browser'], limit: 3 });
    const person = funnelsQueryToFilter(funnel({ breakdownFilter: { breakdown: ['$browser', 'plan'], breakdown_type: 'person' } }), 'query');
    assert.deepEqual(person.breakdown, { type: 'person', properties: ['$browser', 'plan'], limit: 25 });
    const listed = funnelsQueryToFilter(
      funnel({ breakdownFilter: { breakdowns: [{ property: '$browser', type: 'event' }, { property: '$os' }], breakdown_hide_other_aggregation: true } }),
      'query',
    );
    assert.deepEqual(listed.breakdown, { type: 'event', properties: ['$browser', '$os'], limit: 25 });
    const cohorts = funnelsQueryToFilter(funnel({ breakdownFilter: { breakdown: ['all', 4], breakdown_type: 'cohort' } }), 'query');
    assert.deepEqual(cohorts.breakdown, { type: 'cohort', cohorts: [0, 4] });
    const group = funnelsQueryToFilter(funnel({ breakdownFilter: { breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 0 } }), 'query');
    assert.deepEqual(group.breakdown, { type: 'group', properties: ['industry'], groupTypeIndex: 0, limit: 25 });
    const groupListed = funnelsQueryToFilter(
      funnel({ breakdownFilter: { breakdowns: [{ property: 'industry', type: 'group', group_type_index: 1 }] } }),
      'query',
    );
    assert.deepEqual(groupListed.breakdown, { type: 'group', properties: ['industry'], groupTypeIndex: 1, limit: 25 });
    const step = funnelsQueryToFilter(
      funnel({ breakdownFilter: { breakdown: '$browser' }, funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 1 } }),
      'query',
    );
    assert.deepEqual(step.attribution, { kind: 'step', step: 1 });
    // A value PostHog's UI leaves behind for another attribution type is not read.
    const last = funnelsQueryToFilter(funnel({ funnelsFilter: { breakdownAttributionType: 'last_touch', breakdownAttributionValue: 9 } }), 'query');
    assert.deepEqual(last.attribution, { kind: 'last_touch' });
  });

  test('exclusions: events and actions with their step ranges and properties', () => {
    const filter = funnelsQueryToFilter(
      funnel({
        series: [SIGNUP, PAID, { kind: 'EventsNode', event: 'buy' }],
        funnelsFilter: {
          exclusions: [
            { kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 1, properties: [{ key: 'a', value: 'b' }] },
            { kind: 'ActionsNode', id: 3, funnelFromStep: 1, funnelToStep: 2 },
            // The step's own event, narrowed by a property the step does not have, is another event.
            { kind: 'EventsNode', event: 'paid', funnelFromStep: 0, funnelToStep: 1, properties: [{ key: 'coupon', value: 'yes' }] },
          ],
        },
      }),
      'query',
    );
    assert.deepEqual(
      filter.exclusions.map((exclusion) => [
        exclusion.entity.type,
        exclusion.entity.id,
        exclusion.fromStep,
        exclusion.toStep,
        exclusion.entity.properties.values.length,
      ]),
      [
        ['events', 'x', 0, 1, 1],
        ['actions', 3, 1, 2, 0],
        ['events', 'paid', 0, 1, 1],
      ],
    );
  });

  test('bad fields are 400s naming their dotted path from the request root', () => {
    const cases: Array<[Record<string, unknown>, string, string?]> = [
      [{ series: [SIGNUP] }, 'query.source.series', 'A funnel needs at least two steps.'],
      [{ series: 'x' }, 'query.source.series'],
      [{ series: [SIGNUP, { kind: 'DataWarehouseNode' }] }, 'query.source.series.1.kind'],
      [{ series: [SIGNUP, { kind: 'ActionsNode', id: 'x' }] }, 'query.source.series.1.id'],
      [{ series: [SIGNUP, { ...PAID, math: 'first_time_for_user' }] }, 'query.source.series.1.math'],
      [{ series: [SIGNUP, { ...PAID, math: 'hogql' }] }, 'query.source.series.1.math'],
      [{ series: [SIGNUP, { ...PAID, optionalInFunnel: true }] }, 'query.source.series.1.optionalInFunnel'],
      [{ series: [SIGNUP, { ...PAID, properties: [{ key: 'x', type: 'hogql' }] }] }, 'query.source.series.1.properties.0.type'],
      [{ series: Array.from({ length: 31 }, () => SIGNUP) }, 'query.source.series'],
      [{ dateRange: { date_from: 'someday' } }, 'query.source.dateRange.date_from'],
      [{ dateRange: { date_to: 'all' } }, 'query.source.dateRange.date_to'],
      [{ interval: 'minute' }, 'query.source.interval'],
      [{ properties: 'x' }, 'query.source.properties'],
      [{ filterTestAccounts: 'yes' }, 'query.source.filterTestAccounts'],
      [{ samplingFactor: 0.1 }, 'query.source.samplingFactor'],
      [{ aggregation_group_type_index: 5 }, 'query.source.aggregation_group_type_index'],
      [{ funnelsFilter: [] }, 'query.source.funnelsFilter'],
      [{ funnelsFilter: { funnelOrderType: 'random' } }, 'query.source.funnelsFilter.funnelOrderType'],
      [{ funnelsFilter: { funnelVizType: 'pie' } }, 'query.source.funnelsFilter.funnelVizType'],
      [{ funnelsFilter: { funnelWindowInterval: 0 } }, 'query.source.funnelsFilter.funnelWindowInterval'],
      [{ funnelsFilter: { funnelWindowInterval: 99_999_999, funnelWindowIntervalUnit: 'month' } }, 'query.source.funnelsFilter.funnelWindowInterval'],
      [{ funnelsFilter: { funnelWindowIntervalUnit: 'year' } }, 'query.source.funnelsFilter.funnelWindowIntervalUnit'],
      [{ funnelsFilter: { funnelFromStep: 1 } }, 'query.source.funnelsFilter.funnelFromStep', 'funnelFromStep is out of bounds. It must be between 0 and 0.'],
      [{ funnelsFilter: { funnelToStep: 0 } }, 'query.source.funnelsFilter.funnelToStep', 'funnelToStep is out of bounds. It must be between 1 and 1.'],
      [{ funnelsFilter: { funnelFromStep: -1 } }, 'query.source.funnelsFilter.funnelFromStep'],
      [{ funnelsFilter: { binCount: 2.5 } }, 'query.source.funnelsFilter.binCount'],
      [{ funnelsFilter: { breakdownAttributionType: 'middle' } }, 'query.source.funnelsFilter.breakdownAttributionType'],
      [{ funnelsFilter: { breakdownAttributionType: 'step', breakdownAttributionValue: 5 } }, 'query.source.funnelsFilter.breakdownAttributionValue'],
      [
        { funnelsFilter: { funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue: 1 } },
        'query.source.funnelsFilter.breakdownAttributionValue',
      ],
      [{ funnelsFilter: { funnelAggregateByHogQL: 'properties.$session_id' } }, 'query.source.funnelsFilter.funnelAggregateByHogQL'],
      [{ funnelsFilter: { exclusions: {} } }, 'query.source.funnelsFilter.exclusions'],
      [{ funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0 }] } }, 'query.source.funnelsFilter.exclusions.0.funnelToStep'],
      [{ funnelsFilter: { exclusions: [{ kind: 'GroupNode', funnelFromStep: 0, funnelToStep: 1 }] } }, 'query.source.funnelsFilter.exclusions.0.kind'],
      [
        { funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: 0, funnelToStep: 2 }] } },
        'query.source.funnelsFilter.exclusions.0',
        'Exclusion event range is invalid. End of range is greater than number of steps.',
      ],
      [
        { funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: 'paid', funnelFromStep: 0, funnelToStep: 1 }] } },
        'query.source.funnelsFilter.exclusions.0',
        "Exclusion event can't be the same as funnel step",
      ],
      [{ breakdownFilter: { breakdown: { a: 1 } } }, 'query.source.breakdownFilter.breakdown'],
      [{ breakdownFilter: { breakdown: 'x', breakdown_type: 'hogql' } }, 'query.source.breakdownFilter.breakdown_type'],
      [{ breakdownFilter: { breakdown: 'x', breakdown_type: 'session' } }, 'query.source.breakdownFilter.breakdown_type'],
      [{ breakdownFilter: { breakdown: 'x', breakdown_type: 'group' } }, 'query.source.breakdownFilter.breakdown_group_type_index'],
      [{ breakdownFilter: { breakdown: 'x', breakdown_type: 'cohort' } }, 'query.source.breakdownFilter.breakdown'],
      [{ breakdownFilter: { breakdown: '$browser', breakdown_limit: 0 } }, 'query.source.breakdownFilter.breakdown_limit'],
      [{ breakdownFilter: { breakdown: '$url', breakdown_normalize_url: true } }, 'query.source.breakdownFilter.breakdown_normalize_url'],
      [{ breakdownFilter: { breakdown: 'a', breakdowns: [{ property: 'b' }] } }, 'query.source.breakdownFilter.breakdowns'],
      [{ breakdownFilter: { breakdowns: [{ property: 'a' }, { property: 'b', type: 'person' }] } }, 'query.source.breakdownFilter.breakdowns.1.type'],
      [{ breakdownFilter: { breakdowns: [{ type: 'event' }] } }, 'query.source.breakdownFilter.breakdowns.0.property'],
      [{ breakdownFilter: { breakdowns: [{ property: 'a', type: 'cohort' }] } }, 'query.source.breakdownFilter.breakdowns.0.type'],
      [
        { breakdownFilter: { breakdowns: [{ property: 'a', type: 'group', group_type_index: 9 }] } },
        'query.source.breakdownFilter.breakdowns.0.group_type_index',
      ],
      [
        {
          breakdownFilter: {
            breakdowns: [
              { property: 'a', type: 'group' },
              { property: 'b', type: 'group' },
            ],
          },
        },
        'query.source.breakdownFilter.breakdowns',
      ],
      [{ breakdownFilter: { breakdowns: [{ property: 'a', type: 'group' }] } }, 'query.source.breakdownFilter.breakdown_group_type_index'],
    ];
    for (const [fields, attr, detail] of cases) rejects(funnel(fields), attr, detail);
    rejects([], 'query.source');
    rejects({ kind: 'TrendsQuery', series: [] }, 'query.source.kind');
  });

  test("the runner's legacy-named errors are restated at the node's fields", () => {
    const restated = (attr: string) => (funnelErrorInQuery(new ValidationError(attr, 'x'), 'query.source') as ValidationError).attr;
    assert.equal(restated('actions'), 'query.source.series');
    assert.equal(restated('breakdown'), 'query.source.breakdownFilter.breakdown');
    assert.equal(restated('properties'), 'query.source.properties');
    assert.equal(restated('exclusions'), 'query.source.funnelsFilter.exclusions');
    assert.equal(restated('date_from'), 'query.source.dateRange.date_from');
    assert.equal(restated('something_else'), 'query.source');
    const other = new Error('boom');
    assert.equal(funnelErrorInQuery(other, 'query'), other);
  });
});

describe('FunnelsQuery results', () => {
  const entity = (index: number, fields: Partial<SeriesEntity>): SeriesEntity => ({
    type: 'events',
    id: null,
    order: index,
    name: '',
    customName: null,
    mathName: null,
    math: { kind: 'total' },
    mathProperty: null,
    mathGroupTypeIndex: null,
    properties: EMPTY_PROPERTY_GROUP,
    index,
    ...fields,
  });
  const stepsOf = (counts: number[]) => [
    {
      entity: entity(0, { id: 'sign up', name: 'sign up', customName: 'Signed up' }),
      index: 0,
      count: counts[0]!,
      averageConversionTime: null,
      medianConversionTime: null,
    },
    { entity: entity(1, { type: 'actions', id: 7, name: 'paid' }), index: 1, count: counts[1]!, averageConversionTime: 60, medianConversionTime: 30 },
  ];

  test('steps without a breakdown: one list; step 0 has no times', () => {
    assert.deepEqual(funnelsQueryResults({ kind: 'steps', orderType: 'ordered', series: [{ bucket: null, steps: stepsOf([4, 2]) }] }), [
      {
        action_id: 'sign up',
        name: 'sign up',
        custom_name: 'Signed up',
        order: 0,
        people: [],
        count: 4,
        type: 'events',
        average_conversion_time: null,
        median_conversion_time: null,
      },
      {
        action_id: 7,
        name: 'paid',
        custom_name: null,
        order: 1,
        people: [],
        count: 2,
        type: 'actions',
        average_conversion_time: 60,
        median_conversion_time: 30,
      },
    ]);
  });

  test('unordered steps are "Completed N step(s)"; breakdowns give a list per bucket', () => {
    const unordered = funnelsQueryResults({
      kind: 'steps',
      orderType: 'unordered',
      series: [
        { bucket: { kind: 'values', key: ['Chrome'], values: ['Chrome'] }, steps: stepsOf([2, 1]) },
        { bucket: { kind: 'cohort', key: ['4'], cohortId: 4, name: 'Fans' }, steps: stepsOf([1, 0]) },
      ],
    }) as Array<Array<Record<string, unknown>>>;
    assert.deepEqual(
      unordered.map((list) => list.map((step) => [step.action_id, step.name, step.custom_name, step.type, step.count, step.breakdown, step.breakdown_value])),
      [
        [
          [null, 'Completed 1 step', null, 'events', 2, ['Chrome'], ['Chrome']],
          [null, 'Completed 2 steps', null, 'actions', 1, ['Chrome'], ['Chrome']],
        ],
        [
          [null, 'Completed 1 step', null, 'events', 1, 'Fans', 4],
          [null, 'Completed 2 steps', null, 'actions', 0, 'Fans', 4],
        ],
      ],
    );
    assert.deepEqual(funnelsQueryResults({ kind: 'steps', orderType: 'ordered', series: [] }), []);
  });

  test('trends and time to convert', () => {
    const periodStart = DateTime.fromISO('2021-05-01T00:00:00', { zone: 'UTC' });
    assert.deepEqual(
      funnelsQueryResults({
        kind: 'trends',
        interval: 'day',
        series: [{ bucket: { kind: 'group', key: ['tech'], value: 'tech' }, points: [{ periodStart, reachedFrom: 2, reachedTo: 1, conversionRate: 50 }] }],
      }),
      [{ count: 1, data: [50], days: ['2021-05-01'], labels: ['1-May-2021'], breakdown_value: 'tech' }],
    );
    assert.deepEqual(funnelsQueryResults({ kind: 'time_to_convert', bins: [[60, 2]], averageConversionTime: 61.5 }), {
      bins: [[60, 2]],
      average_conversion_time: 61.5,
    });
  });
});
