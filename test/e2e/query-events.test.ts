import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture } from '../support/definitions.js';
import { captureForeignEvents, QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import type { TallyServer } from '../support/tally.js';

function events(server: TallyServer, fields: Record<string, unknown>, project = 1) {
  return runQuery(server, { kind: 'EventsQuery', after: 'all', ...fields }, { project });
}

describe('query API: EventsQuery', () => {
  let server: TallyServer;
  let foreignId: number;
  let adaId: number;
  let adaUuid: string;
  let actionId: number;
  let foreignActionId: number;

  before(async () => {
    const started = await startQueryServer([]);
    server = started.server;
    foreignId = started.foreign.id;
    await capture(server, QUERY_TOKEN, [
      { event: '$pageview', distinct_id: 'ada', timestamp: '2024-03-01T10:00:00Z', properties: { $browser: 'Chrome', $current_url: 'https://tally.dev/a' } },
      { event: '$pageview', distinct_id: 'ada', timestamp: '2024-03-02T10:00:00Z', properties: { $browser: 'Firefox', $current_url: 'https://tally.dev/b' } },
      { event: 'signed up', distinct_id: 'bob', timestamp: '2024-03-03T10:00:00Z', properties: { $browser: 'Safari', plan: 'pro' } },
      { event: '$identify', distinct_id: 'ada', timestamp: '2024-03-03T11:00:00Z', properties: { $set: { email: 'ada@example.com' } } },
      { event: 'recent', distinct_id: 'bob', timestamp: new Date(Date.now() - 3_600_000).toISOString() },
    ]);
    await captureForeignEvents(server, started.foreign.api_token);
    const persons = await server.bodyOf('GET', '/api/projects/1/persons/?distinct_id=ada');
    adaId = persons.results[0].id;
    adaUuid = persons.results[0].uuid;
    const action = await server.bodyOf('POST', '/api/projects/1/actions/', 201, { body: { name: 'Signed up', steps: [{ event: 'signed up' }] } });
    actionId = action.id;
    const foreignAction = await server.bodyOf('POST', `/api/projects/${foreignId}/actions/`, 201, {
      body: { name: 'Foreign', steps: [{ event: 'foreign_secret' }] },
    });
    foreignActionId = foreignAction.id;
  });
  after(() => server.dispose());

  test('columns are the select strings, types a flat list, newest first when timestamp is selected', async () => {
    const { status, body } = await events(server, { select: ['event', 'distinct_id', 'properties.$browser', 'timestamp'] });
    assert.equal(status, 200);
    assert.deepEqual(body.columns, ['event', 'distinct_id', 'properties.$browser', 'timestamp']);
    assert.deepEqual(body.types, ['String', 'String', 'Nullable(String)', "DateTime64(6, 'UTC')"]);
    assert.deepEqual(
      body.results.map((row: unknown[]) => row.slice(0, 3)),
      [
        ['recent', 'bob', null],
        ['$identify', 'ada', null],
        ['signed up', 'bob', 'Safari'],
        ['$pageview', 'ada', 'Firefox'],
        ['$pageview', 'ada', 'Chrome'],
      ],
    );
    assert.equal(body.results[2][3], '2024-03-03T10:00:00Z');
    assert.deepEqual([body.hasMore, body.limit, body.offset], [false, 100, 0]);
    assert.equal(body.is_cached, false);
  });

  test('"*" is the event as an object, "person" its current person', async () => {
    const { body } = await events(server, { select: ['*', 'person -- Person'], event: 'signed up' });
    const [[event, person]] = body.results;
    assert.deepEqual(Object.keys(event), ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at', 'person_mode']);
    assert.equal(event.event, 'signed up');
    assert.equal(event.properties.plan, 'pro');
    assert.equal(event.timestamp, '2024-03-03T10:00:00Z');
    assert.equal(event.team_id, 1);
    assert.deepEqual(Object.keys(person), ['uuid', 'created_at', 'properties', 'distinct_id']);
    assert.equal(person.distinct_id, 'bob');
    const identified = await events(server, { select: ['person'], event: '$identify' });
    assert.equal(identified.body.results[0][0].properties.email, 'ada@example.com');
    assert.equal(identified.body.results[0][0].uuid, adaUuid);
  });

  test('aggregates: grouped by the other columns, ordered by count() desc; aggregate where items go to HAVING', async () => {
    const counted = await events(server, { select: ['event', 'count()'] });
    assert.deepEqual(counted.body.results[0], ['$pageview', 2]);
    assert.deepEqual(counted.body.results.slice(1).sort(), [
      ['$identify', 1],
      ['recent', 1],
      ['signed up', 1],
    ]);
    const having = await events(server, { select: ['event', 'count()'], where: ['count() > 1'] });
    assert.deepEqual(having.body.results, [['$pageview', 2]]);
    const plain = await events(server, { select: ['distinct_id', 'uniq(event)'], where: ["distinct_id = 'ada'"] });
    assert.deepEqual(plain.body.results, [['ada', 2]]);
  });

  test('without count() or timestamp the first column orders ascending; orderBy takes HogQL', async () => {
    assert.deepEqual((await events(server, { select: ['distinct_id'] })).body.results, [['ada'], ['ada'], ['ada'], ['bob'], ['bob']]);
    const ordered = await events(server, { select: ['event', 'timestamp'], orderBy: ['timestamp ASC'], limit: 2 });
    assert.deepEqual(
      ordered.body.results.map((row: string[]) => row[0]),
      ['$pageview', '$pageview'],
    );
    assert.equal(ordered.body.hasMore, true);
  });

  test('filters: event, properties (event and person), fixedProperties, actionId, personId (id or UUID)', async () => {
    const select = ['event', 'distinct_id'];
    assert.deepEqual((await events(server, { select, event: 'signed up' })).body.results, [['signed up', 'bob']]);
    const browser = await events(server, { select, properties: [{ key: '$browser', value: 'Firefox', operator: 'exact', type: 'event' }] });
    assert.deepEqual(browser.body.results, [['$pageview', 'ada']]);
    const person = await events(server, {
      select: ['event'],
      properties: [{ key: 'email', value: 'ada@example.com', operator: 'exact', type: 'person' }],
      fixedProperties: [{ key: '$browser', operator: 'is_set', type: 'event' }],
    });
    assert.deepEqual(person.body.results, [['$pageview'], ['$pageview']]);
    assert.deepEqual((await events(server, { select, actionId })).body.results, [['signed up', 'bob']]);
    for (const personId of [adaId, String(adaId), adaUuid]) {
      const byPerson = await events(server, { select: ['count()'], personId });
      assert.deepEqual(byPerson.body.results, [[3]], String(personId));
    }
    assert.deepEqual((await events(server, { select: ['count()'], personId: '99999' })).body.results, [[0]]);
  });

  test('after defaults to the last 24 hours; bounds are strict and take relative dates', async () => {
    const recent = await runQuery(server, { kind: 'EventsQuery', select: ['event'] });
    assert.deepEqual(recent.body.results, [['recent']]);
    const window = await events(server, { select: ['event'], after: '2024-03-01T10:00:00Z', before: '2024-03-03T10:00:00Z' });
    assert.deepEqual(window.body.results, [['$pageview']]);
    const relative = await events(server, { select: ['count()'], after: '-7d' });
    assert.deepEqual(relative.body.results, [[1]]);
  });

  test('paging: limit, offset and hasMore; limit is clamped to 50,000', async () => {
    const first = await events(server, { select: ['event', 'timestamp'], limit: 2 });
    const second = await events(server, { select: ['event', 'timestamp'], limit: 2, offset: 2 });
    const third = await events(server, { select: ['event', 'timestamp'], limit: 2, offset: 4 });
    assert.deepEqual([first.body.hasMore, second.body.hasMore, third.body.hasMore, third.body.offset], [true, true, false, 4]);
    assert.deepEqual(
      [...first.body.results, ...second.body.results, ...third.body.results].map((row: string[]) => row[0]),
      ['recent', '$identify', 'signed up', '$pageview', '$pageview'],
    );
    assert.equal((await events(server, { select: ['event'], limit: 1_000_000 })).body.limit, 50_000);
  });

  test('errors name the field of the text: query.select.N, query.where.N, query.orderBy.N', async () => {
    assert.deepEqual((await events(server, { select: ['event', 'nope('] })).body, {
      type: 'validation_error',
      code: 'hogql_syntax_error',
      detail: 'Unexpected end of query',
      attr: 'query.select.1',
    });
    assert.deepEqual((await events(server, { select: ['event'], where: ['no_field = 1'] })).body, {
      type: 'validation_error',
      code: 'hogql_query_error',
      detail: 'Unable to resolve field: no_field',
      attr: 'query.select',
    });
    assert.equal((await events(server, { select: ['event'], where: ['1 +'] })).body.attr, 'query.where.0');
    assert.equal((await events(server, { select: ['event'], orderBy: ['(timestamp'] })).body.attr, 'query.orderBy.0');
    assert.deepEqual((await events(server, { select: ['event'], orderBy: ['timestamp sideways'], limit: 1 })).body.results, [['$pageview']]);
    assert.deepEqual((await runQuery(server, { kind: 'EventsQuery' })).body, {
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'query.select',
    });
    assert.equal((await events(server, { select: ['event'], after: 'someday' })).body.attr, 'query.after');
    assert.deepEqual((await events(server, { select: ['event'], before: '-99999999999d' })).body, {
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Unable to parse date "-99999999999d".',
      attr: 'query.before',
    });
    assert.equal((await events(server, { select: ['event'], limit: 'ten' })).body.attr, 'query.limit');
    assert.equal((await events(server, { select: ['event'], personId: 'not-a-person' })).body.attr, 'query.personId');
  });

  test("isolation: another project's events never appear; its action is unknown here", async () => {
    const all = await events(server, { select: ['*', 'person', 'properties.marker'], limit: 1000 });
    assert.ok(!all.text.includes('FOREIGN_MARKER') && !all.text.includes('foreign_secret'), all.text);
    assert.deepEqual((await events(server, { select: ['count()'], event: 'foreign_secret' })).body.results, [[0]]);
    const foreignAction = await events(server, { select: ['event'], actionId: foreignActionId });
    assert.equal(foreignAction.status, 400);
    assert.equal(foreignAction.body.attr, 'query.actionId');
    const there = await events(server, { select: ['count()'] }, foreignId);
    assert.deepEqual(there.body.results, [[3]]);
  });

  test("in a DataTableNode, as PostHog's events table sends it", async () => {
    const { body } = await runQuery(server, {
      kind: 'DataTableNode',
      source: { kind: 'EventsQuery', select: ['*', 'event', 'person', 'timestamp'], after: 'all', orderBy: ['timestamp DESC'], limit: 1 },
    });
    assert.equal(body.results[0][1], 'recent');
    assert.deepEqual(body.columns, ['*', 'event', 'person', 'timestamp']);
  });
});
