import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { errorInQuery, trendsQueryToFilter } from '../../src/insights/query-nodes/trends-query.js';

const PAGEVIEWS = { kind: 'EventsNode', event: '$pageview' };

function trends(fields: Record<string, unknown>) {
  return { kind: 'TrendsQuery', series: [PAGEVIEWS], ...fields };
}

function rejects(node: unknown, attr: string, detail?: string): void {
  assert.throws(
    () => trendsQueryToFilter(node, 'query.source'),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.attr, attr);
      if (detail !== undefined) assert.equal(error.detail, detail);
      return true;
    },
  );
}

describe('TrendsQuery → legacy trend filter', () => {
  test('series keep their order and become events and actions with order = index', () => {
    const { filter, formulas } = trendsQueryToFilter(
      trends({
        series: [
          { kind: 'EventsNode', event: 'sign up', custom_name: 'Signups', math: 'dau' },
          { kind: 'ActionsNode', id: 7, name: 'Paid', math: 'sum', math_property: 'amount' },
          { kind: 'EventsNode', event: null, math: 'unique_group', math_group_type_index: 1 },
        ],
      }),
      'query',
    );
    assert.deepEqual(formulas, []);
    assert.deepEqual(
      filter.entities.map((entity) => [entity.index, entity.order, entity.type, entity.id, entity.name, entity.customName, entity.mathName]),
      [
        [0, 0, 'events', 'sign up', 'sign up', 'Signups', 'dau'],
        [1, 1, 'actions', 7, 'Paid', null, 'sum'],
        [2, 2, 'events', null, 'All events', null, 'unique_group'],
      ],
    );
    assert.deepEqual(filter.entities[0]!.math, { kind: 'dau' });
    assert.deepEqual(filter.entities[1]!.math, { kind: 'property', fn: 'sum', property: 'amount' });
    assert.deepEqual(filter.entities[2]!.math, { kind: 'unique_group', groupTypeIndex: 1 });
  });

  test('dates, interval, properties, test accounts, breakdown, compare, display, smoothing and formula', () => {
    const { filter, formulas } = trendsQueryToFilter(
      trends({
        series: [
          { ...PAGEVIEWS, properties: [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }] },
          { ...PAGEVIEWS, fixedProperties: [{ key: 'plan', value: 'pro', type: 'person' }] },
        ],
        dateRange: { date_from: '2020-01-01', date_to: '2020-01-05', explicitDate: true },
        interval: 'week',
        properties: { type: 'AND', values: [{ type: 'OR', values: [{ key: 'amount', value: 5, operator: 'gt' }] }] },
        filterTestAccounts: true,
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 3, breakdown_hide_other_aggregation: true },
        compareFilter: { compare: true },
        trendsFilter: { display: 'ActionsBar', smoothingIntervals: 7, formula: 'A + B', showLegend: true },
      }),
      'query',
    );
    assert.deepEqual(filter.dates, { dateFrom: '2020-01-01', dateTo: '2020-01-05', interval: 'week', explicitDate: true });
    assert.equal(filter.filterTestAccounts, true);
    assert.equal(filter.compare, true);
    assert.equal(filter.display, 'ActionsBar');
    assert.equal(filter.smoothingIntervals, 7);
    assert.equal(filter.formula, null, 'formulas are computed one at a time');
    assert.deepEqual(formulas, [{ formula: 'A + B', customName: null }]);
    assert.deepEqual(
      [filter.breakdown?.type, filter.breakdown?.property, filter.breakdown?.limit, filter.breakdown?.hideOtherAggregation],
      ['event', '$browser', 3, true],
    );
    assert.deepEqual(filter.properties, {
      kind: 'group',
      type: 'AND',
      values: [
        {
          kind: 'group',
          type: 'OR',
          values: [{ kind: 'filter', type: 'event', key: 'amount', value: 5, operator: 'gt', groupTypeIndex: null, negation: false }],
        },
      ],
    });
    assert.deepEqual(filter.entities[0]!.properties.values, [
      { kind: 'filter', type: 'event', key: '$browser', value: 'Chrome', operator: 'exact', groupTypeIndex: null, negation: false },
    ]);
    assert.deepEqual(filter.entities[1]!.properties.values, [
      { kind: 'filter', type: 'person', key: 'plan', value: 'pro', operator: 'exact', groupTypeIndex: null, negation: false },
    ]);
  });

  test('defaults: the last 7 days by day, no breakdown, no formula', () => {
    const { filter, formulas } = trendsQueryToFilter(trends({}), 'query');
    assert.deepEqual(filter.dates, { dateFrom: null, dateTo: null, interval: 'day', explicitDate: false });
    assert.equal(filter.breakdown, null);
    assert.equal(filter.compare, false);
    assert.equal(filter.display, 'ActionsLineGraph');
    assert.deepEqual(formulas, []);
  });

  test('one entry of breakdowns is the breakdown; formulaNodes and formulas in order, custom names kept', () => {
    const { filter, formulas } = trendsQueryToFilter(
      trends({
        series: [PAGEVIEWS, PAGEVIEWS],
        breakdownFilter: { breakdowns: [{ property: 'email', type: 'person' }] },
        trendsFilter: { formulaNodes: [{ formula: 'A + B', custom_name: 'Both' }, { formula: 'A / B' }], formula: 'ignored by nodes' },
      }),
      'query',
    );
    assert.deepEqual([filter.breakdown?.type, filter.breakdown?.property], ['person', 'email']);
    assert.deepEqual(formulas, [
      { formula: 'A + B', customName: 'Both' },
      { formula: 'A / B', customName: null },
    ]);
    const listed = trendsQueryToFilter(trends({ series: [PAGEVIEWS, PAGEVIEWS], trendsFilter: { formulas: ['A', 'B * 2'] } }), 'query');
    assert.deepEqual(listed.formulas, [
      { formula: 'A', customName: null },
      { formula: 'B * 2', customName: null },
    ]);
  });

  test('compareFilter: compare_to moves the compared period only when compare is on', () => {
    const compared = trendsQueryToFilter(trends({ compareFilter: { compare: true, compare_to: '-1w' } }), 'query');
    assert.equal(compared.filter.compare, true);
    assert.equal(compared.compareTo, '-1w');
    assert.equal(trendsQueryToFilter(trends({ compareFilter: { compare: true, compare_to: '2020-01-01' } }), 'query').compareTo, '2020-01-01');
    assert.equal(trendsQueryToFilter(trends({ compareFilter: { compare: true } }), 'query').compareTo, null);
    const alone = trendsQueryToFilter(trends({ compareFilter: { compare_to: '-1w' } }), 'query');
    assert.deepEqual([alone.filter.compare, alone.compareTo], [false, null]);
  });

  test('what the legacy runner cannot compute is a 400 naming its dotted path', () => {
    rejects([], 'query.source', 'A query must be an object.');
    rejects({ kind: 'FunnelsQuery', series: [] }, 'query.source.kind');
    rejects({ kind: 'TrendsQuery' }, 'query.source.series');
    rejects(trends({ series: ['$pageview'] }), 'query.source.series.0');
    rejects(trends({ series: [{ kind: 'DataWarehouseNode', id: 'x' }] }), 'query.source.series.0.kind');
    rejects(trends({ series: [PAGEVIEWS, { kind: 'ActionsNode', id: 'seven' }] }), 'query.source.series.1.id');
    rejects(trends({ series: [{ ...PAGEVIEWS, math: 'hogql', math_hogql: 'count()' }] }), 'query.source.series.0.math');
    rejects(trends({ series: [{ ...PAGEVIEWS, math: 'first_time_for_user' }] }), 'query.source.series.0.math');
    rejects(trends({ series: [{ ...PAGEVIEWS, math: 'avg' }] }), 'query.source.series.0.math_property');
    rejects(trends({ series: [{ ...PAGEVIEWS, math: 'unique_group' }] }), 'query.source.series.0.math_group_type_index');
    rejects(trends({ series: [{ ...PAGEVIEWS, math_multiplier: 100 }] }), 'query.source.series.0.math_multiplier');
    rejects(trends({ series: [{ ...PAGEVIEWS, properties: [{ key: 'x', value: 1, type: 'hogql' }] }] }), 'query.source.series.0.properties.0.type');
    rejects(trends({ properties: { type: 'AND', values: [{ key: 'x', type: 'data_warehouse' }] } }), 'query.source.properties.values.0.type');
    rejects(trends({ properties: 'browser' }), 'query.source.properties');
    rejects(trends({ interval: 'minute' }), 'query.source.interval');
    rejects(trends({ interval: 'fortnight' }), 'query.source.interval');
    rejects(trends({ dateRange: { date_from: 'yesterday-ish' } }), 'query.source.dateRange.date_from');
    rejects(trends({ dateRange: { date_to: 'all' } }), 'query.source.dateRange.date_to');
    rejects(trends({ compareFilter: { compare: true, compare_to: 'last tuesday' } }), 'query.source.compareFilter.compare_to');
    rejects(trends({ compareFilter: { compare: true, compare_to: 7 } }), 'query.source.compareFilter.compare_to');
    rejects(trends({ samplingFactor: 0.1 }), 'query.source.samplingFactor');
    rejects(trends({ aggregation_group_type_index: 0 }), 'query.source.aggregation_group_type_index');
    rejects(trends({ conversionGoal: { actionId: 1 } }), 'query.source.conversionGoal');
    rejects(trends({ breakdownFilter: { breakdowns: [{ property: 'a' }, { property: 'b' }] } }), 'query.source.breakdownFilter.breakdowns');
    rejects(trends({ breakdownFilter: { breakdown: 'x', breakdown_type: 'hogql' } }), 'query.source.breakdownFilter.breakdown_type');
    rejects(trends({ breakdownFilter: { breakdown: 'x', breakdown_type: 'group' } }), 'query.source.breakdownFilter.breakdown_group_type_index');
    rejects(trends({ breakdownFilter: { breakdown: 'x', breakdown_limit: 0 } }), 'query.source.breakdownFilter.breakdown_limit');
    rejects(trends({ trendsFilter: { formula: 'A + C' } }), 'query.source.trendsFilter.formula');
    rejects(trends({ trendsFilter: { formulas: ['A', 'A ^ 2'] } }), 'query.source.trendsFilter.formulas.1');
    rejects(trends({ trendsFilter: { formulaNodes: [{ formula: 'B' }] } }), 'query.source.trendsFilter.formulaNodes.0.formula');
    rejects(trends({ trendsFilter: { smoothingIntervals: 0 } }), 'query.source.trendsFilter.smoothingIntervals');
    rejects(trends({ filterTestAccounts: 'yes' }), 'query.source.filterTestAccounts');
  });

  test('errors of the legacy runner are restated at their place in the node', () => {
    const restated = errorInQuery(new ValidationError('interval', 'Too many intervals.'), 'query.source');
    assert.ok(restated instanceof ValidationError);
    assert.deepEqual([restated.attr, restated.detail], ['query.source.interval', 'Too many intervals.']);
    assert.equal((errorInQuery(new ValidationError('date_to', 'x'), 'query') as ValidationError).attr, 'query.dateRange.date_to');
    assert.equal((errorInQuery(new ValidationError('properties', 'x'), 'query') as ValidationError).attr, 'query.properties');
    assert.equal((errorInQuery(new ValidationError(null, 'x'), 'query') as ValidationError).attr, 'query');
    const other = new Error('boom');
    assert.equal(errorInQuery(other, 'query'), other);
  });
});
