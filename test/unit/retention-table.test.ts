import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { ValidationError } from '../../src/errors.js';
import type { ProjectClock } from '../../src/query/date-range.js';
import { parseRetentionFilter, parseRetentionSelection } from '../../src/insights/retention/retention-filter.js';
import { legacyRetentionResult } from '../../src/insights/retention/retention-legacy-result.js';

const NOW = DateTime.fromISO('2020-06-25T10:20:30.000Z', { zone: 'UTC' });

function clock(timezone = 'UTC', weekStartDay: 0 | 1 = 0): ProjectClock {
  return { timezone, weekStartDay, now: NOW };
}

describe('retention filter', () => {
  test('defaults: $pageview targets and returns, Day, 11 intervals, recurring, up to now', () => {
    const filter = parseRetentionFilter({}, clock());
    assert.equal(filter.target.id, '$pageview');
    assert.equal(filter.returning.id, '$pageview');
    assert.equal(filter.period, 'day');
    assert.equal(filter.totalIntervals, 11);
    assert.equal(filter.firstTime, false);
    assert.equal(filter.start.toISO(), '2020-06-15T00:00:00.000Z');
    assert.equal(filter.end.toISO(), '2020-06-26T00:00:00.000Z');
    assert.deepEqual(filter.breakdowns, []);
    assert.equal(filter.aggregationGroupTypeIndex, null);
  });

  test('the returning entity: returning_entity, else the first of events/actions, else the target', () => {
    const target = { id: 'signed up', type: 'events' };
    assert.equal(parseRetentionFilter({ target_entity: target }, clock()).returning.id, 'signed up');
    assert.equal(parseRetentionFilter({ target_entity: target, events: [{ id: 'paid' }] }, clock()).returning.id, 'paid');
    const returning = parseRetentionFilter({ target_entity: target, events: [{ id: 'paid' }], returning_entity: { id: 'came back', type: 'events' } }, clock());
    assert.equal(returning.returning.id, 'came back');
  });

  test('months keep the day of month; Monday weeks when the project says so; the project timezone', () => {
    const months = parseRetentionFilter({ date_to: '2020-11-10', period: 'Month' }, clock());
    assert.deepEqual([months.start.toISODate(), months.end.toISODate()], ['2020-01-10', '2020-12-10']);
    const mondays = parseRetentionFilter({ date_to: '2020-07-20', period: 'Week', total_intervals: 7 }, clock('UTC', 1));
    assert.equal(mondays.start.toISODate(), '2020-06-08');
    const pacific = parseRetentionFilter({ date_to: '2020-06-20T05:00:00' }, clock('US/Pacific'));
    assert.equal(pacific.start.toISO(), '2020-06-10T00:00:00.000-07:00');
  });

  test('breakdowns: a list of {property, type}, or a property with breakdown_type', () => {
    assert.deepEqual(parseRetentionFilter({ breakdowns: '[{"property": "os", "type": "person"}]' }, clock()).breakdowns, [
      { type: 'person', property: 'os', groupTypeIndex: null },
    ]);
    assert.deepEqual(parseRetentionFilter({ breakdown: 'industry', breakdown_type: 'group', breakdown_group_type_index: 1 }, clock()).breakdowns, [
      { type: 'group', property: 'industry', groupTypeIndex: 1 },
    ]);
    for (const input of [{ breakdowns: '{}' }, { breakdowns: [{ type: 'cohort', property: 'x' }] }, { breakdown: 'os', breakdown_type: 'session' }]) {
      assert.throws(() => parseRetentionFilter(input, clock()), ValidationError, JSON.stringify(input));
    }
  });
});

describe('retention selection', () => {
  const table = parseRetentionFilter({ date_to: '2020-06-20', total_intervals: 5 }, clock());

  test('the cohort of selected_interval or breakdown_values; selected_interval beside breakdown_values is an interval', () => {
    assert.deepEqual(parseRetentionSelection({}, table), { key: ['0'], interval: null, length: 5 });
    assert.deepEqual(parseRetentionSelection({ selected_interval: '2' }, table), { key: ['2'], interval: null, length: 3 });
    assert.deepEqual(parseRetentionSelection({ breakdown_values: '[1]' }, table), { key: ['1'], interval: null, length: 4 });
    assert.deepEqual(parseRetentionSelection({ breakdown_values: [1], selected_interval: 3 }, table), { key: ['1'], interval: 3, length: 4 });
    assert.throws(() => parseRetentionSelection({ breakdown_values: [1], selected_interval: 4 }, table), ValidationError);
  });

  test('with breakdowns, breakdown_values name the row', () => {
    const byOs = parseRetentionFilter({ date_to: '2020-06-20', total_intervals: 5, breakdown: 'os' }, clock());
    assert.deepEqual(parseRetentionSelection({ breakdown_values: '["Chrome"]', selected_interval: 4 }, byOs), { key: ['Chrome'], interval: 4, length: 5 });
    assert.throws(() => parseRetentionSelection({ selected_interval: 1 }, byOs), ValidationError);
    assert.throws(() => parseRetentionSelection({ breakdown_values: '["Chrome", "Mac"]' }, byOs), ValidationError);
  });
});

describe('legacy retention table', () => {
  const filter = parseRetentionFilter({ date_to: '2020-06-12', total_intervals: 3 }, clock());

  test('a triangle of cohorts with labels, dates and persons URLs for the rows and the non-zero values', () => {
    const rows = legacyRetentionResult(7, filter, {
      rows: [0, 1, 2].map((cohort) => ({
        breakdownValues: null,
        cohort,
        date: filter.start.plus({ days: cohort }),
        counts: [
          [2, 1, 0],
          [1, 0, 0],
          [0, 0, 0],
        ][cohort]!,
      })),
    });
    assert.deepEqual(
      rows.map((row) => [row.label, row.date, (row.values as Array<{ count: number }>).map((value) => value.count)]),
      [
        ['Day 0', '2020-06-10T00:00:00Z', [2, 1, 0]],
        ['Day 1', '2020-06-11T00:00:00Z', [1, 0]],
        ['Day 2', '2020-06-12T00:00:00Z', [0]],
      ],
    );
    const first = rows[0]!;
    const rowUrl = new URL(String(first.people_url), 'http://tally');
    assert.equal(rowUrl.pathname, '/api/projects/7/persons/retention/');
    assert.equal(rowUrl.searchParams.get('breakdown_values'), '[0]');
    assert.equal(rowUrl.searchParams.get('display'), 'ActionsTable');
    assert.equal(rowUrl.searchParams.get('total_intervals'), '3');
    const values = first.values as Array<{ count: number; people: unknown[]; people_url?: string }>;
    const valueUrl = new URL(values[1]!.people_url!, 'http://tally');
    assert.equal(valueUrl.searchParams.get('selected_interval'), '1');
    assert.deepEqual(values[2], { count: 0, people: [] });
  });

  test('breakdown rows are labelled by their values and hold every interval', () => {
    const byOs = parseRetentionFilter({ date_to: '2020-06-12', total_intervals: 3, breakdown: 'os' }, clock());
    const [row] = legacyRetentionResult(1, byOs, { rows: [{ breakdownValues: ['Chrome'], cohort: null, date: null, counts: [1, 1, 0] }] });
    assert.equal(row!.label, 'Chrome');
    assert.deepEqual(row!.breakdown_values, ['Chrome']);
    assert.equal(row!.date, undefined);
    assert.equal((row!.values as unknown[]).length, 3);
  });
});
