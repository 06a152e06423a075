import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../src/errors.js';
import { funnelCorrelationQueryToFilter } from '../../src/insights/query-nodes/funnel-correlation-query.js';
import { funnelCorrelationResponse } from '../../src/insights/query-nodes/funnel-correlation-query-results.js';

const FUNNEL = {
  kind: 'FunnelsQuery',
  series: [
    { kind: 'EventsNode', event: 'sign up' },
    { kind: 'EventsNode', event: 'paid' },
  ],
};

function correlation(fields: Record<string, unknown> = {}, source: Record<string, unknown> = {}) {
  return { kind: 'FunnelCorrelationQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, ...source }, funnelCorrelationType: 'events', ...fields };
}

function rejects(node: unknown, attr: string, detail?: string): void {
  assert.throws(
    () => funnelCorrelationQueryToFilter(node, 'query'),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.attr, attr, error.detail);
      if (detail !== undefined) assert.equal(error.detail, detail);
      return true;
    },
  );
}

describe('FunnelCorrelationQuery → legacy correlation filter', () => {
  test('the funnel of its FunnelsActorsQuery, the type and the name lists; funnelStep is ignored', () => {
    const filter = funnelCorrelationQueryToFilter(
      correlation(
        {
          funnelCorrelationType: 'event_with_properties',
          funnelCorrelationEventNames: ['paid'],
          funnelCorrelationEventExcludePropertyNames: ['$ip'],
          funnelCorrelationExcludeEventNames: ['$pageleave'],
        },
        { funnelStep: 2, includeRecordings: true },
      ),
      'query',
    );
    assert.deepEqual(
      filter.funnel.steps.map((step) => step.id),
      ['sign up', 'paid'],
    );
    assert.equal(filter.type, 'event_with_properties');
    assert.deepEqual(filter.eventNames, ['paid']);
    assert.deepEqual(filter.eventExcludePropertyNames, ['$ip']);
    assert.deepEqual(filter.excludeEventNames, ['$pageleave']);
    assert.deepEqual([filter.propertyNames, filter.excludePropertyNames], [[], []]);
    const properties = funnelCorrelationQueryToFilter(
      correlation({ funnelCorrelationType: 'properties', funnelCorrelationNames: ['$all'], funnelCorrelationExcludeNames: ['$browser'] }),
      'query',
    );
    assert.deepEqual([properties.type, properties.propertyNames, properties.excludePropertyNames], ['properties', ['$all'], ['$browser']]);
  });

  test("bad fields are 400s naming their dotted path; the funnel's are under source.source", () => {
    const cases: Array<[unknown, string, string?]> = [
      [{ ...correlation(), funnelCorrelationType: undefined }, 'query.funnelCorrelationType', 'This field is required.'],
      [correlation({ funnelCorrelationType: 'vibes' }), 'query.funnelCorrelationType'],
      [
        correlation({ funnelCorrelationType: 'properties' }),
        'query.funnelCorrelationNames',
        'Property Correlation expects atleast one Property to run correlation on',
      ],
      [
        correlation({ funnelCorrelationType: 'event_with_properties' }),
        'query.funnelCorrelationEventNames',
        'Event Property Correlation expects atleast one event name to run correlation on',
      ],
      [correlation({ funnelCorrelationExcludeEventNames: 'x' }), 'query.funnelCorrelationExcludeEventNames'],
      [correlation({ funnelCorrelationNames: ['a', 1], funnelCorrelationType: 'properties' }), 'query.funnelCorrelationNames.1'],
      [{ kind: 'FunnelCorrelationQuery', funnelCorrelationType: 'events' }, 'query.source', 'This field is required.'],
      [{ kind: 'FunnelCorrelationQuery', source: FUNNEL, funnelCorrelationType: 'events' }, 'query.source.kind'],
      [{ kind: 'FunnelCorrelationQuery', source: { kind: 'FunnelsActorsQuery' }, funnelCorrelationType: 'events' }, 'query.source.source'],
      [correlation({}, { funnelStepBreakdown: ['Chrome'] }), 'query.source.funnelStepBreakdown'],
      [correlation({}, { funnelTrendsDropOff: true }), 'query.source.funnelTrendsDropOff'],
      [correlation({}, { source: { ...FUNNEL, series: [] } }), 'query.source.source.series'],
      [correlation({}, { source: { ...FUNNEL, dateRange: { date_from: 'soon' } } }), 'query.source.source.dateRange.date_from'],
      [{ kind: 'FunnelsQuery' }, 'query.kind'],
    ];
    for (const [node, attr, detail] of cases) rejects(node, attr, detail);
  });

  test('results: the rows without persons URLs, and the contingency columns', () => {
    const response = funnelCorrelationResponse({
      type: 'events',
      skewed: false,
      totals: { success: 5, failure: 5 },
      rows: [
        { subject: { kind: 'event', event: 'positively_related' }, visited: { success: 5, failure: 0 }, oddsRatio: 11, correlationType: 'success' },
        {
          subject: { kind: 'event_property', event: 'paid', property: 'plan', value: 'pro' },
          visited: { success: 3, failure: 0 },
          oddsRatio: 5.5,
          correlationType: 'success',
        },
        {
          subject: { kind: 'property', property: '$browser', value: 'Safari' },
          visited: { success: 0, failure: 5 },
          oddsRatio: 1 / 11,
          correlationType: 'failure',
        },
      ],
    });
    assert.deepEqual(response, {
      results: {
        events: [
          {
            event: { event: 'positively_related', properties: {}, elements: [] },
            success_count: 5,
            failure_count: 0,
            odds_ratio: 11,
            correlation_type: 'success',
          },
          {
            event: { event: 'paid::plan::pro', properties: {}, elements: [] },
            success_count: 3,
            failure_count: 0,
            odds_ratio: 5.5,
            correlation_type: 'success',
          },
          {
            event: { event: '$browser::Safari', properties: {}, elements: [] },
            success_count: 0,
            failure_count: 5,
            odds_ratio: 1 / 11,
            correlation_type: 'failure',
          },
        ],
        skewed: false,
      },
      columns: ['name', 'success_count', 'failure_count'],
      types: [
        ['name', 'String'],
        ['success_count', 'UInt64'],
        ['failure_count', 'UInt64'],
      ],
      hasMore: false,
      limit: null,
      offset: null,
    });
  });
});
