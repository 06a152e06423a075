import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DateTime } from 'luxon';
import { ValidationError } from '../../src/errors.js';
import { actorsQueryToPlan, actorsSourceToPlan } from '../../src/insights/query-nodes/actors-query.js';
import { actorSort } from '../../src/insights/query-nodes/actors-columns.js';
import type { ProjectClock } from '../../src/query/date-range.js';

const CLOCK: ProjectClock = { timezone: 'UTC', weekStartDay: 0, now: DateTime.fromISO('2020-02-01T12:00:00Z', { zone: 'UTC' }) };
const TRENDS = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'watched' }], dateRange: { date_from: '2020-01-01', date_to: '2020-01-07' } };
const FUNNEL = {
  kind: 'FunnelsQuery',
  series: [
    { kind: 'EventsNode', event: 'a' },
    { kind: 'EventsNode', event: 'b' },
    { kind: 'EventsNode', event: 'c' },
  ],
};
const STICKINESS = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'watched' }] };
const LIFECYCLE = { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: 'play' }] };

const plan = (node: unknown) => actorsQueryToPlan(node, 'query', CLOCK);

function rejects(node: unknown, attr: string, detail?: string): void {
  assert.throws(
    () => plan(node),
    (error: unknown) => {
      assert.ok(error instanceof ValidationError, String(error));
      assert.equal(error.attr, attr, error.detail);
      if (detail !== undefined) assert.equal(error.detail, detail);
      return true;
    },
  );
}

describe('ActorsQuery → plan', () => {
  test('defaults: the persons, three columns, the source order, a page of 100', () => {
    const persons = plan({ kind: 'ActorsQuery' });
    assert.deepEqual(persons.source, { kind: 'persons' });
    assert.deepEqual(persons.select, ['person', 'id', 'person.$delete']);
    assert.equal(persons.orderBy, null);
    assert.deepEqual(persons.page, { limit: 100, offset: 0 });
    assert.equal(persons.search, null);
    const trends = plan({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: TRENDS, day: '2020-01-02' } });
    assert.deepEqual(trends.select, ['person', 'id', 'person.$delete', 'event_distinct_ids']);
  });

  test('a trends day is the bucket of the persons URL; the previous period moves it', () => {
    const current = plan({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: TRENDS, day: '2020-01-02' } }).source;
    assert.equal(current.kind, 'trends');
    if (current.kind !== 'trends') return;
    assert.equal(current.filter.dates.dateFrom, '2020-01-02T00:00:00Z');
    assert.equal(current.filter.dates.dateTo, '2020-01-02T23:59:59.999999Z');
    assert.equal(current.entity.id, 'watched');
    const compared = plan({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: { ...TRENDS, compareFilter: { compare: true } }, day: '2020-01-02', compare: 'previous' },
    }).source;
    if (compared.kind !== 'trends') return assert.fail(compared.kind);
    assert.equal(compared.filter.dates.dateFrom, '2019-12-26T00:00:00Z');
    assert.equal(compared.filter.dates.dateTo, '2019-12-26T23:59:59.999999Z');
  });

  test('funnel steps: N reached, -N dropped; 0 and -1 name no step', () => {
    const reached = plan({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 2 } }).source;
    assert.deepEqual(reached.kind === 'funnels' && reached.selection, { kind: 'reached', step: 2 });
    const dropped = plan({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: -3 } }).source;
    assert.deepEqual(dropped.kind === 'funnels' && dropped.selection, { kind: 'dropped', before: 3 });
    for (const funnelStep of [0, -1, 4, -4, 1.5])
      rejects({ kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep } }, 'query.source.funnelStep');
  });

  test('stickiness operators; cumulative stickiness counts N or more', () => {
    const exact = plan({ kind: 'ActorsQuery', source: { kind: 'StickinessActorsQuery', source: STICKINESS, day: 2 } }).source;
    assert.equal(exact.kind === 'stickiness' && exact.operator, 'exact');
    const cumulative = plan({
      kind: 'ActorsQuery',
      source: { kind: 'InsightActorsQuery', source: { ...STICKINESS, stickinessFilter: { computedAs: 'cumulative' } }, day: 2 },
    }).source;
    assert.equal(cumulative.kind === 'stickiness' && cumulative.operator, 'gte');
  });

  test('limit is clamped to 1000; select and orderBy name their index', () => {
    const source = { kind: 'InsightActorsQuery', source: LIFECYCLE, day: '2020-01-30', status: 'new' };
    const clamped = plan({ kind: 'ActorsQuery', source, limit: 100_000, offset: 20, select: ['id', 'created_at'], orderBy: ['created_at ASC', 'id'] });
    assert.deepEqual(clamped.page, { limit: 1000, offset: 20 });
    assert.deepEqual(clamped.orderBy, [
      { column: 'created_at', descending: false },
      { column: 'id', descending: false },
    ]);
    assert.deepEqual(plan({ kind: 'ActorsQuery', source, select: ['created_at'] }).orderBy, [{ column: 'created_at', descending: true }]);
    rejects({ kind: 'ActorsQuery', source, select: ['id', 'event_count'] }, 'query.select.1');
    rejects({ kind: 'ActorsQuery', source, orderBy: ['id', 'created_at SIDEWAYS'] }, 'query.orderBy.1');
    rejects({ kind: 'ActorsQuery', source, orderBy: ['length(appearances)'] }, 'query.orderBy.0');
    rejects({ kind: 'ActorsQuery', source: { ...source, status: 'gone' } }, 'query.source.status');
    rejects({ kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: TRENDS } }, 'query.source.day');
  });

  test('a source sent alone is planned as an ActorsQuery of it at the root', () => {
    const alone = actorsSourceToPlan({ kind: 'FunnelsActorsQuery', source: FUNNEL, funnelStep: 1 }, 'query', CLOCK);
    assert.deepEqual(alone.select, ['person', 'id', 'person.$delete']);
    assert.throws(() => actorsSourceToPlan({ kind: 'FunnelsActorsQuery', source: FUNNEL }, 'query', CLOCK), { attr: 'query.funnelStep' });
  });

  test('orderBy names person properties; the order is what the actors services sort by', () => {
    const source = { kind: 'InsightActorsQuery', source: TRENDS, day: '2020-01-02' };
    const orderBy = ['person.properties.email DESC', 'properties.$browser', 'person.properties.`first name` asc', 'event_count', 'person.$delete', 'id DESC'];
    const order = plan({ kind: 'ActorsQuery', source, orderBy }).orderBy!;
    assert.deepEqual(order.slice(0, 3), [
      { column: 'person.properties.email', property: 'email', descending: true },
      { column: 'person.properties.$browser', property: '$browser', descending: false },
      { column: 'person.properties.first name', property: 'first name', descending: false },
    ]);
    assert.deepEqual(actorSort(order, new Map([['email', 'pmat_email_0123456789abcdef']])), [
      { key: { kind: 'property', key: 'email', column: 'pmat_email_0123456789abcdef' }, descending: true },
      { key: { kind: 'property', key: '$browser', column: null }, descending: false },
      { key: { kind: 'property', key: 'first name', column: null }, descending: false },
      { key: { kind: 'value', name: 'value' }, descending: false },
      { key: { kind: 'actor' }, descending: true },
    ]);
    rejects({ kind: 'ActorsQuery', source, orderBy: ['person.properties.email SIDEWAYS'] }, 'query.orderBy.0');
    rejects({ kind: 'ActorsQuery', source, orderBy: ['id', 'person.properties.'] }, 'query.orderBy.1');
    rejects({ kind: 'ActorsQuery', source, orderBy: ['person_display_name'] }, 'query.orderBy.0');
  });
});
