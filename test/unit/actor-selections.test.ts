import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { ValidationError } from '../../src/errors.js';
import { parseAnalysisFilter } from '../../src/insights/actors/analysis-filter.js';
import type { ProjectClock } from '../../src/query/date-range.js';
import { parseStepBreakdown, parseStepSelection } from '../../src/insights/funnels/funnel-actors.js';
import { parseRetentionFilter, selectedInterval } from '../../src/insights/retention/retention-filter.js';
import { dataPointRange } from '../../src/insights/trends/trend-actors.js';

// Sunday 15 March 2020, 10:20:30 UTC.
const NOW = DateTime.fromISO('2020-03-15T10:20:30.000Z', { zone: 'UTC' });

function clock(timezone = 'UTC'): ProjectClock {
  return { timezone, weekStartDay: 0, now: NOW };
}

function utc(at: DateTime): string {
  return at.toUTC().toISO()!;
}

describe('funnel step selection', () => {
  test('N reaches step N or further, -N dropped off before step N, custom steps are exact', () => {
    assert.deepEqual(parseStepSelection({ funnel_step: '2' }, 3), { kind: 'reached', step: 2 });
    assert.deepEqual(parseStepSelection({ funnel_step: 0 }, 3), { kind: 'reached', step: 1 });
    assert.deepEqual(parseStepSelection({ funnel_step: '-3' }, 3), { kind: 'dropped', before: 3 });
    assert.deepEqual(parseStepSelection({ funnel_step: 1, funnel_custom_steps: '[1, 3]' }, 3), { kind: 'exactly', steps: [1, 3] });
    for (const funnelStep of ['-1', '4', '-4', 'x', undefined]) {
      assert.throws(() => parseStepSelection({ funnel_step: funnelStep }, 3), ValidationError, String(funnelStep));
    }
  });

  test('funnel_step_breakdown arrives boxed, bare, or as a cohort id', () => {
    assert.equal(parseStepBreakdown('["Chrome"]'), 'Chrome');
    assert.equal(parseStepBreakdown('Chrome'), 'Chrome');
    assert.equal(parseStepBreakdown(['Safari']), 'Safari');
    assert.equal(parseStepBreakdown('[""]'), '');
    assert.equal(parseStepBreakdown(12), '12');
    assert.equal(parseStepBreakdown(undefined), null);
  });
});

describe('trend data point range', () => {
  const range = (params: Record<string, unknown>, timezone = 'UTC') => {
    const { from, to } = dataPointRange(parseAnalysisFilter(params), clock(timezone));
    return [utc(from), utc(to)];
  };

  test('a bucket start alone, or equal bounds, mean that one bucket', () => {
    assert.deepEqual(range({ date_from: '2020-01-02', date_to: '2020-01-02' }), ['2020-01-02T00:00:00.000Z', '2020-01-02T23:59:59.999Z']);
    assert.deepEqual(range({ date_from: '2020-01-02T10:00:00', interval: 'hour' }), ['2020-01-02T10:00:00.000Z', '2020-01-02T10:59:59.999Z']);
    assert.deepEqual(range({ date_from: '2020-02-01', date_to: '2020-02-01', interval: 'month' }), ['2020-02-01T00:00:00.000Z', '2020-02-29T23:59:59.999Z']);
  });

  test('the bucket ends the persons URLs give, in the project timezone', () => {
    assert.deepEqual(range({ date_from: '2020-01-05', date_to: '2020-01-11', interval: 'week' }), ['2020-01-05T00:00:00.000Z', '2020-01-11T23:59:59.999Z']);
    assert.deepEqual(range({ date_from: '2020-01-02T10:00:00Z', date_to: '2020-01-02T11:00:00Z', interval: 'hour' }), [
      '2020-01-02T10:00:00.000Z',
      '2020-01-02T10:59:59.999Z',
    ]);
    assert.deepEqual(range({ date_from: '2020-01-02', date_to: '2020-01-02' }, 'US/Pacific'), ['2020-01-02T08:00:00.000Z', '2020-01-03T07:59:59.999Z']);
  });

  test('cumulative and aggregate displays take the whole range', () => {
    assert.deepEqual(range({ date_from: '2020-01-01', date_to: '2020-01-03', display: 'ActionsLineGraphCumulative' }), [
      '2020-01-01T00:00:00.000Z',
      '2020-01-03T23:59:59.999Z',
    ]);
    assert.deepEqual(range({ date_from: '2020-01-01', date_to: '2020-01-03', display: 'ActionsTable' }), [
      '2020-01-01T00:00:00.000Z',
      '2020-01-03T23:59:59.999Z',
    ]);
  });
});

describe('retention window', () => {
  test('date_to moves on one period; cohort 0 starts total_intervals periods before', () => {
    const days = parseRetentionFilter({ date_to: '2020-06-20T06:00:00Z' }, clock());
    assert.equal(utc(days.start), '2020-06-10T00:00:00.000Z');
    assert.equal(utc(days.end), '2020-06-21T00:00:00.000Z');
    const weeks = parseRetentionFilter({ date_to: '2020-06-20', period: 'Week', total_intervals: 2 }, clock());
    // 06-27 minus two weeks is Saturday 06-13; weeks start on Sunday 06-07.
    assert.equal(utc(weeks.start), '2020-06-07T00:00:00.000Z');
    const hours = parseRetentionFilter({ date_to: '2020-06-20T06:30:00Z', period: 'hour', total_intervals: 3 }, clock());
    assert.deepEqual([utc(hours.start), utc(hours.end)], ['2020-06-20T04:00:00.000Z', '2020-06-20T07:00:00.000Z']);
  });

  test('selected_interval, or the one value of breakdown_values, below total_intervals', () => {
    assert.equal(selectedInterval({}, 11), 0);
    assert.equal(selectedInterval({ selected_interval: '3' }, 11), 3);
    assert.equal(selectedInterval({ breakdown_values: '[4]' }, 11), 4);
    assert.throws(() => selectedInterval({ selected_interval: '11' }, 11), ValidationError);
    assert.throws(() => selectedInterval({ breakdown_values: '["Chrome"]' }, 11), ValidationError);
  });
});
