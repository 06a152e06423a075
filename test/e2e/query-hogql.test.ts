import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { capture } from '../support/definitions.js';
import { captureForeignEvents, hogql, QUERY_TOKEN, runQuery, startQueryServer } from '../support/query-server.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

function syntaxError(detail: string, attr = 'query.query') {
  return { type: 'validation_error', code: 'hogql_syntax_error', detail, attr };
}

function queryError(detail: string, attr = 'query.query') {
  return { type: 'validation_error', code: 'hogql_query_error', detail, attr };
}

describe('query API: HogQLQuery', () => {
  let server: TallyServer;
  let foreignId: number;
  let scopedKey: string;

  before(async () => {
    const started = await startQueryServer(['query:read@1'], { TALLY_QUERY_TIMEOUT_S: '2' });
    server = started.server;
    foreignId = started.foreign.id;
    scopedKey = started.keys['query:read@1']!;
    await capture(server, QUERY_TOKEN, [
      {
        event: '$pageview',
        distinct_id: 'ada',
        timestamp: '2024-03-01T10:00:00Z',
        properties: {
          $browser: 'Chrome',
          amount: 12.5,
          count: 0,
          flag: true,
          empty: '',
          nothing: null,
          nested: { a: { b: 'deep' } },
          list: [10, 20, 30],
          quoted: 'say "hi" \\ back',
        },
      },
      { event: '$pageview', distinct_id: 'ada', timestamp: '2024-03-02T10:00:00Z', properties: { $browser: 'Firefox' } },
      { event: 'signed up', distinct_id: 'bob', timestamp: '2024-03-03T10:00:00Z', properties: { $browser: 'Safari', plan: 'pro' } },
      { event: '$identify', distinct_id: 'ada', timestamp: '2024-03-03T11:00:00Z', properties: { $set: { email: 'ada@example.com' } } },
    ]);
    await capture(server, QUERY_TOKEN, [
      { event: 'anonymous', distinct_id: 'nobody', timestamp: '2024-03-04T10:00:00Z', properties: { $process_person_profile: false } },
    ]);
    await captureForeignEvents(server, started.foreign.api_token);
  });
  after(() => server.dispose());

  test('a grouped count: results, columns, types and pagination fields', async () => {
    const body = await server.bodyOf('POST', '/api/projects/1/query/', 200, {
      body: { query: { kind: 'HogQLQuery', query: 'select event, count() from events group by event order by event' } },
    });
    assert.deepEqual(body.results, [
      ['$identify', 1],
      ['$pageview', 2],
      ['anonymous', 1],
      ['signed up', 1],
    ]);
    assert.deepEqual(body.columns, ['event', 'count()']);
    assert.deepEqual(body.types, [
      ['event', 'String'],
      ['count()', 'UInt64'],
    ]);
    assert.equal(body.hasMore, false);
    assert.equal(body.limit, 100);
    assert.equal(body.offset, 0);
    assert.equal(body.is_cached, false);
    assert.equal(body.timezone, 'UTC');
    assert.equal(body.query, 'select event, count() from events group by event order by event');
    assert.equal(body.hogql, 'SELECT event, count() FROM events GROUP BY event ORDER BY event ASC');
    assert.deepEqual(body.timings, []);
    assert.ok(!Number.isNaN(Date.parse(body.last_refresh)));
  });

  test('property reads: strings as they are, other values as JSON text, JSON null and missing keys as null', async () => {
    const { body } = await hogql(
      server,
      'select properties.$browser, properties.amount, properties.count, properties.flag, properties.empty, properties.nothing, properties.missing, ' +
        "properties.nested.a.b, properties.nested, properties.list.2, properties['list'][3], properties.list " +
        "from events where timestamp = toDateTime('2024-03-01 10:00:00')",
    );
    assert.deepEqual(body.results, [['Chrome', '12.5', '0', 'true', '', null, null, 'deep', '{"a":{"b":"deep"}}', '20', '30', '[10,20,30]']]);
    assert.deepEqual(body.columns, [
      '$browser',
      'amount',
      'count',
      'flag',
      'empty',
      'nothing',
      'missing',
      'nested__a__b',
      'nested',
      'properties.list.2',
      "properties['list'][3]",
      'list',
    ]);
    assert.deepEqual(body.types[0], ['$browser', 'Nullable(String)']);
    // A string is read as it was sent, escapes decoded, so comparing it with the same text matches.
    const quoted = await hogql(server, `select properties.quoted from events where properties.quoted = 'say "hi" \\\\ back'`);
    assert.deepEqual(quoted.body.results, [['say "hi" \\ back']]);
  });

  test('person properties are the current person, reached through the distinct id; events without a person keep theirs', async () => {
    const { body } = await hogql(
      server,
      'select e.event, e.distinct_id, person.properties.email, e.person.properties.email is null from events e order by timestamp',
    );
    assert.deepEqual(body.columns, ['event', 'distinct_id', 'email', 'equals(e.person.properties.email, NULL)']);
    assert.deepEqual(
      body.results.map((row: unknown[]) => row.slice(0, 3)),
      [
        ['$pageview', 'ada', 'ada@example.com'],
        ['$pageview', 'ada', 'ada@example.com'],
        ['signed up', 'bob', null],
        ['$identify', 'ada', 'ada@example.com'],
        ['anonymous', 'nobody', null],
      ],
    );
  });

  test('joins with persons and distinct ids, subqueries, CTEs and UNION ALL', async () => {
    const joined = await hogql(
      server,
      'select p.properties.email, count() from events e join persons p on p.id = e.person_id group by p.properties.email order by 2 desc',
    );
    assert.deepEqual(joined.body.results, [
      ['ada@example.com', 3],
      [null, 1],
    ]);
    const pdi = await hogql(server, 'select distinct_id, person.properties.email from person_distinct_ids order by distinct_id');
    assert.deepEqual(pdi.body.results, [
      ['ada', 'ada@example.com'],
      ['bob', null],
    ]);
    const nested = await hogql(
      server,
      'with totals as (select event, count() as c from events group by event) select t.event, t.c from totals t where t.c > 1',
    );
    assert.deepEqual(nested.body.results, [['$pageview', 2]]);
    const union = await hogql(server, "select 'a' as x union all select 'b' as x");
    assert.deepEqual(union.body.results.map((row: string[]) => row[0]).sort(), ['a', 'b']);
    assert.equal(union.body.hasMore, null);
  });

  test("IN COHORT: the members of the project's cohort", async () => {
    const cohort = await server.bodyOf('POST', '/api/projects/1/cohorts/', 201, {
      body: { name: 'Ada', filters: { properties: { type: 'AND', values: [{ key: 'email', value: 'ada@example.com', operator: 'exact', type: 'person' }] } } },
    });
    const { body } = await hogql(server, `select countIf(person_id in cohort ${cohort.id}), countIf(person_id not in cohort ${cohort.id}) from events`);
    assert.deepEqual(body.results, [[3, 2]]);
    assert.deepEqual((await hogql(server, 'select 1 from events where person_id in cohort 999999')).body, queryError('Cohort 999999 does not exist.'));
    const foreign = await server.bodyOf('POST', `/api/projects/${foreignId}/cohorts/`, 201, {
      body: { name: 'Foreign', filters: { properties: { type: 'AND', values: [{ key: 'email', operator: 'is_set', type: 'person' }] } } },
    });
    assert.deepEqual(
      (await hogql(server, `select 1 from events where person_id in cohort ${foreign.id}`)).body,
      queryError(`Cohort ${foreign.id} does not exist.`),
    );
  });

  test('values: strings, numbers and lists are bound placeholders', async () => {
    const { body } = await hogql(server, 'select count() from events where distinct_id in {ids} and event = {name}', {
      ids: ['ada', 'bob'],
      name: '$pageview',
    });
    assert.deepEqual(body.results, [[2]]);
    const long = Array.from({ length: 5000 }, (_, index) => `id_${index}`).concat('bob');
    assert.deepEqual((await hogql(server, 'select count() from events where distinct_id in {ids}', { ids: long })).body.results, [[1]]);
  });

  test('values and placeholders that do not fit are 400s naming query.values', async () => {
    assert.deepEqual((await hogql(server, 'select {missing}')).body, queryError('Unresolved placeholder: {missing}', 'query.values'));
    assert.deepEqual(
      (await hogql(server, 'select {missing}', { a: 1 })).body,
      queryError('Placeholder {missing} is not available in this context. You can use the following: a', 'query.values'),
    );
    assert.deepEqual((await hogql(server, 'select {a}', { a: { nested: 1 } })).body, {
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'The value of {a} must be a string, number, boolean, null or a list of them.',
      attr: 'query.values.a',
    });
    assert.equal((await runQuery(server, { kind: 'HogQLQuery', query: 'select 1', values: [1] })).body.attr, 'query.values');
  });

  test("without LIMIT: 100 rows, hasMore, and the query's own OFFSET", async () => {
    const first = await hogql(server, 'select number from numbers(250)');
    assert.equal(first.body.results.length, 100);
    assert.deepEqual([first.body.results[0], first.body.results[99]], [[0], [99]]);
    assert.deepEqual([first.body.hasMore, first.body.limit, first.body.offset], [true, 100, 0]);
    const last = await hogql(server, 'select number from numbers(250) offset 200');
    assert.deepEqual([last.body.results.length, last.body.results[0], last.body.hasMore, last.body.limit, last.body.offset], [50, [200], false, 100, 200]);
  });

  test('an explicit LIMIT is honoured up to 50,000 rows, without pagination fields', async () => {
    const small = await hogql(server, 'select number from numbers(250) limit 3');
    assert.deepEqual(small.body.results, [[0], [1], [2]]);
    assert.deepEqual([small.body.hasMore, small.body.limit, small.body.offset], [null, null, null]);
    const big = await hogql(server, 'select number from numbers(60000) limit 60000');
    assert.equal(big.body.results.length, 50000);
    const page = await hogql(server, 'select number from numbers(10) limit 2, 3');
    assert.deepEqual(page.body.results, [[3], [4]]);
  });

  test('HogQL semantics: null comparisons, concat, OrNull conversions, ??, the project time zone', async () => {
    const { body } = await hogql(
      server,
      "select null = null, null != 2, 1 < null, concat('a', null, 1), toInt('x'), toInt('12'), toFloat('1.5'), null ?? 'fallback', toDateTime('2024-01-02 03:04:05'), toDate('2024-01-02')",
    );
    assert.deepEqual(body.results, [[1, 1, 0, 'a1', null, 12, 1.5, 'fallback', '2024-01-02T03:04:05Z', '2024-01-02']]);
    const times = await hogql(server, "select toDateTime(timestamp), toDate(timestamp), toDateTime('garbage') from events where event = 'signed up'");
    assert.deepEqual(times.body.results, [['2024-03-03T10:00:00Z', '2024-03-03', null]]);
    assert.deepEqual(
      body.types.map((pair: string[]) => pair[1]),
      [
        'UInt8',
        'UInt8',
        'UInt8',
        'String',
        'Nullable(Int64)',
        'Nullable(Int64)',
        'Nullable(Float64)',
        'String',
        "Nullable(DateTime64(6, 'UTC'))",
        'Nullable(Date)',
      ],
    );
  });

  test("values are PostHog's JSON: times with Z, 64-bit integers as numbers, tuples as lists, NaN as null", async () => {
    const { body } = await hogql(server, "select timestamp, toUInt64(18446744073), (1, 'a'), nan, 1 = 1, uuid from events where event = 'signed up'");
    const [row] = body.results;
    assert.deepEqual(row.slice(0, 5), ['2024-03-03T10:00:00Z', 18446744073, [1, 'a'], null, 1]);
    assert.match(row[5], /^[0-9a-f-]{36}$/);
  });

  test('SELECT * on events: the visible columns, never team_id', async () => {
    const { body } = await hogql(server, "select * from events where event = 'signed up'");
    assert.deepEqual(body.columns, [
      'uuid',
      'event',
      'properties',
      'timestamp',
      'distinct_id',
      'elements_chain',
      'created_at',
      '$session_id',
      '$window_id',
      'person_mode',
      '$group_0',
      '$group_1',
      '$group_2',
      '$group_3',
      '$group_4',
    ]);
    assert.equal(body.results[0][1], 'signed up');
    assert.equal(JSON.parse(body.results[0][2]).plan, 'pro');
  });

  test('FORMAT right after a table is a table alias; the answer stays JSON', async () => {
    const response = await hogql(server, "select count() from events FORMAT CSV where event = 'signed up'");
    assert.equal(response.status, 200);
    assert.deepEqual(response.body.results, [[1]]);
  });

  test("syntax errors: 400 hogql_syntax_error with the parser's message, attr query.query", async () => {
    assert.deepEqual((await hogql(server, 'select from events')).body, syntaxError("mismatched input 'from' expecting an expression"));
    assert.deepEqual((await hogql(server, 'select 1; select 2')).body, syntaxError("extraneous input 'select' expecting <EOF>"));
    assert.deepEqual((await hogql(server, 'delete from events')).body, syntaxError("mismatched input 'delete' expecting {SELECT, WITH, '('}"));
    assert.deepEqual(
      (await hogql(server, 'select 1 settings readonly = 0')).body,
      syntaxError('Unsupported: SETTINGS clause: HogQL queries cannot change settings'),
    );
    assert.deepEqual((await hogql(server, 'select event from events where 1 format JSON')).body, syntaxError("extraneous input 'format' expecting <EOF>"));
    assert.deepEqual((await hogql(server, 'select 1 as team_id')).body, syntaxError(`"team_id" cannot be an alias or identifier, as it's a reserved keyword`));
  });

  test('query errors: unknown tables, fields and functions, FINAL, zero indexes', async () => {
    assert.deepEqual((await hogql(server, 'select * from system.tables')).body, queryError('Unknown table `system.tables`.'));
    assert.deepEqual((await hogql(server, "select * from url('http://example.com', CSV)")).body, queryError('Unknown table `url`.'));
    assert.deepEqual((await hogql(server, 'select nope from events')).body, queryError('Unable to resolve field: nope'));
    assert.deepEqual((await hogql(server, 'select sleep(3)')).body, queryError("Unsupported function call 'sleep(...)'"));
    assert.deepEqual(
      (await hogql(server, 'select 1 from events final')).body,
      queryError('The FINAL keyword is not supported in HogQL: tables are read at their current version already'),
    );
    assert.deepEqual(
      (await hogql(server, 'select properties.list.0 from events')).body,
      queryError('SQL indexes start from one, not from zero. E.g: array[1]'),
    );
  });

  test('a ClickHouse error the query causes is a 400 with its message', async () => {
    const { status, body } = await hogql(server, "select timestamp + 'x' from events");
    assert.equal(status, 400);
    assert.equal(body.type, 'validation_error');
    assert.equal(body.code, 'illegal_type_of_argument');
    assert.equal(body.attr, 'query.query');
    assert.match(body.detail, /^Illegal types DateTime64\(6, 'UTC'\) and String of arguments of function plus$/);
  });

  test('limits before parsing: 262,144 characters, brackets nested 64 deep', async () => {
    const long = await hogql(server, `select '${'x'.repeat(262_144)}'`);
    assert.equal(long.status, 400);
    assert.equal(long.body.code, 'hogql_syntax_error');
    assert.match(long.body.detail, /^Query is too long/);
    const deep = await hogql(server, `select ${'('.repeat(65)}1${')'.repeat(65)}`);
    assert.deepEqual(deep.body, syntaxError('Query is nested too deeply: brackets may be nested at most 64 levels.'));
    const legal = await hogql(server, `select ${'('.repeat(10)}1${')'.repeat(10)} + ${Array.from({ length: 300 }, () => '1').join(' + ')}`);
    assert.deepEqual(legal.body.results, [[301]]);
  });

  test('a query over the time limit answers 504 within seconds, the server answers meanwhile, and the next query runs', async () => {
    const started = Date.now();
    const slow = hogql(server, 'select count() from numbers(100000000000) where sipHash64(number) % 7 = 3');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await server.get('/_health');
    assert.deepEqual([health.status, health.body], [200, { status: 'ok' }]);
    assert.ok(Date.now() - started < 1500, 'the server answered while the query ran');
    const { status, body } = await slow;
    assert.equal(status, 504);
    assert.deepEqual(body, {
      type: 'server_error',
      code: 'query_timeout',
      detail: 'Query has hit the max execution time before completing. See our docs for how to improve your query performance. You may need to materialize.',
      attr: null,
    });
    assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
    assert.deepEqual((await hogql(server, 'select 1')).body.results, [[1]]);
  });

  test("project isolation: another project's rows are not there; its path needs access", async () => {
    const { body } = await hogql(server, "select count() from events where event = 'foreign_secret' or distinct_id = 'foreign_user'");
    assert.deepEqual(body.results, [[0]]);
    const foreign = await runQuery(server, { kind: 'HogQLQuery', query: 'select count() from events' }, { project: foreignId });
    assert.deepEqual(foreign.body.results, [[3]]);
    const denied = await runQuery(server, { kind: 'HogQLQuery', query: 'select 1' }, { project: foreignId, key: scopedKey });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'permission_denied');
  });

  test("times read in the project's time zone: days start at its midnight; answers are UTC", async () => {
    await server.bodyOf('PATCH', `/api/projects/${foreignId}/`, 200, { body: { timezone: 'Asia/Tokyo' } });
    const { body } = await runQuery(
      server,
      {
        kind: 'HogQLQuery',
        query: "select timestamp, toHour(timestamp), toStartOfDay(timestamp), toDateTime('2024-01-01 09:00:00') from events where event = 'foreign_secret'",
      },
      { project: foreignId },
    );
    assert.deepEqual(body.results, [['2024-01-01T00:00:00Z', 9, '2023-12-31T15:00:00Z', '2024-01-01T00:00:00Z']]);
    assert.equal(body.timezone, 'Asia/Tokyo');
  });

  test('the environments path and the path without a trailing slash', async () => {
    for (const path of ['/api/environments/1/query/', '/api/projects/1/query', '/api/environments/1/query']) {
      const body = await server.bodyOf('POST', path, 200, { body: { query: { kind: 'HogQLQuery', query: 'select 1' } } });
      assert.deepEqual(body.results, [[1]]);
    }
  });

  test('inside a DataVisualizationNode, errors name query.source.query', async () => {
    const ok = await runQuery(server, { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'select 2' } });
    assert.deepEqual(ok.body.results, [[2]]);
    const bad = await runQuery(server, { kind: 'DataTableNode', source: { kind: 'HogQLQuery', query: 'select nope' } });
    assert.deepEqual(bad.body, queryError('Unable to resolve field: nope', 'query.source.query'));
  });

  test('a missing query text is a 400 naming query.query', async () => {
    assert.deepEqual((await runQuery(server, { kind: 'HogQLQuery' })).body, {
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'query.query',
    });
  });

  test('without a key: 401', async () => {
    const response = await server.post('/api/projects/1/query/', { query: { kind: 'HogQLQuery', query: 'select 1' } }, { key: null });
    assert.equal(response.status, 401);
    assert.deepEqual(response.body, ERRORS.notAuthenticated);
  });
});

describe('query API: HogQLMetadata', () => {
  let server: TallyServer;

  before(async () => {
    server = (await startQueryServer([])).server;
  });
  after(() => server.dispose());

  function metadata(query: string, language = 'hogQL') {
    return runQuery(server, { kind: 'HogQLMetadata', language, query });
  }

  test('a valid query', async () => {
    const { status, body } = await metadata('select event, count() from events e join persons p on p.id = e.person_id group by event');
    assert.equal(status, 200);
    assert.deepEqual(
      { isValid: body.isValid, query: body.query, errors: body.errors, warnings: body.warnings, notices: body.notices, table_names: body.table_names },
      {
        isValid: true,
        query: 'select event, count() from events e join persons p on p.id = e.person_id group by event',
        errors: [],
        warnings: [],
        notices: [],
        table_names: ['events', 'persons'],
      },
    );
  });

  test('errors with their positions and fix: null', async () => {
    assert.deepEqual((await metadata('timestamp')).body.errors, [
      { message: "mismatched input 'timestamp' expecting {SELECT, WITH, '('}", start: 0, end: 9, fix: null },
    ]);
    assert.deepEqual((await metadata('1 + no_field', 'hogQLExpr')).body.errors, [
      { message: 'Unable to resolve field: no_field', start: 4, end: 12, fix: null },
    ]);
    assert.deepEqual((await metadata('select 1', 'hogQLExpr')).body.errors, [
      { message: "mismatched input 'select' expecting an expression", start: 0, end: 6, fix: null },
    ]);
    assert.deepEqual((await metadata('select event from events where')).body.errors, [{ message: 'Unexpected end of query', start: 30, end: 30, fix: null }]);
    assert.equal((await metadata('properties.$browser', 'hogQLExpr')).body.isValid, true);
  });

  test('never a 400 for its text and never run: refused constructs and limits are answers', async () => {
    const started = Date.now();
    for (const query of [
      'select sleep(3)',
      'select * from system.tables',
      'select 1 settings max_threads = 1',
      `select '${'x'.repeat(262_145)}'`,
      `select ${'['.repeat(100)}`,
    ]) {
      const { status, body } = await metadata(query);
      assert.equal(status, 200, query.slice(0, 40));
      assert.equal(body.isValid, false, query.slice(0, 40));
      assert.equal(body.errors.length, 1);
    }
    const heavy = await metadata('select count() from numbers(100000000000) where sipHash64(number) % 7 = 3');
    assert.equal(heavy.body.isValid, true);
    assert.ok(Date.now() - started < 5_000);
  });

  test('Hog languages are a 400 naming query.language', async () => {
    for (const language of ['hog', 'hogTemplate', 'hogJson']) {
      const { status, body } = await metadata('return 1', language);
      assert.equal(status, 400);
      assert.equal(body.attr, 'query.language');
    }
  });
});
