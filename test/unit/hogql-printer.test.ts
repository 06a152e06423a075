import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tableSql, type LazyJoinName } from '../../src/hogql/database.js';
import { HogQLPlaceholderError, HogQLQueryError } from '../../src/hogql/errors.js';
import { parseSelect } from '../../src/hogql/parser.js';
import { COHORT_PERSON, printSelect, type PlaceholderValue } from '../../src/hogql/printer.js';
import { SqlParams } from '../../src/query/sql-params.js';

/** The guarded events subquery selecting only the `columns` a query reads, with its lazy joins. */
function events(columns: string[], joins: LazyJoinName[] = []): string {
  return tableSql('events', new Set(joins), new Set(columns));
}
const PERSONS = tableSql('persons', new Set());
const PDIS = tableSql('person_distinct_ids', new Set());
const GROUPS = tableSql('groups', new Set());

function printed(text: string, values: Record<string, PlaceholderValue> | null = null) {
  const params = new SqlParams({ team_id: 7 });
  const result = printSelect(parseSelect(text), { params, timezone: 'Europe/Berlin', values });
  return { ...result, params: params.all };
}

function property(json: string, ...keys: string[]): string {
  const at = `${json}, ${keys.join(', ')}`;
  return `if(notEmpty(JSONExtractString(${at})), JSONExtractString(${at}), arrayMap(raw_json_value -> if(startsWith(raw_json_value, '"'), '', nullIf(nullIf(raw_json_value, ''), 'null')), [JSONExtractRaw(${at})])[1])`;
}

const GUARD = 'team_id = {team_id:Int64}';
const TABLE_READ = /\b(?:FROM|JOIN)\s+(?:\(\s*SELECT[^)]*?FROM\s+)?(events|persons|person_distinct_ids|groups)\b/g;

/** Every read of a stored table is one of the guarded subqueries, each with its project condition. */
function assertGuarded(sql: string): void {
  const reads = [...sql.matchAll(/\b(?:FROM|JOIN)\s+(events|persons|person_distinct_ids|groups)\b/g)];
  assert.ok(reads.length > 0, sql);
  const guards = sql.split(GUARD).length - 1;
  assert.equal(guards, reads.length, `each of ${reads.length} table reads needs its own guard:\n${sql}`);
  for (const read of reads) {
    const after = sql.slice(read.index!, read.index! + 40);
    assert.match(after, /^(FROM events AS __events|FROM persons FINAL|FROM person_distinct_ids FINAL|FROM groups FINAL)/, sql);
  }
  assert.equal(TABLE_READ.lastIndex, 0);
}

function queryError(text: string, message: string, values: Record<string, PlaceholderValue> | null = null, type = HogQLQueryError): void {
  assert.throws(
    () => printed(text, values),
    (error: unknown) => {
      assert.ok(error instanceof type, String(error));
      assert.equal((error as Error).message, message);
      return true;
    },
  );
}

describe('HogQL printer: exact SQL', () => {
  test('a grouped count', () => {
    const { sql, columns, outputAliases, params } = printed('select event, count() from events group by event order by count() desc');
    assert.equal(
      sql,
      `SELECT \`events\`.\`event\` AS \`_hogql_col_0\`, count() AS \`_hogql_col_1\` FROM ${events(['event'])} AS \`events\` GROUP BY \`events\`.\`event\` ORDER BY count() DESC`,
    );
    assert.deepEqual(columns, ['event', 'count()']);
    assert.deepEqual(outputAliases, ['_hogql_col_0', '_hogql_col_1']);
    assert.deepEqual(params, { team_id: 7 });
  });

  test('property reads and literals are bound parameters', () => {
    const { sql, columns, params } = printed(
      "select properties.$browser as b, properties.nested.a.b from events where properties.$os = 'Mac' and event != 'x'",
    );
    assert.equal(
      sql,
      `SELECT ${property('`events`.`properties`', '{p_0:String}')} AS \`b\`, ${property('`events`.`properties`', '{p_1:String}', '{p_2:String}', '{p_3:String}')} AS \`_hogql_col_1\` ` +
        `FROM ${events(['properties', 'event'])} AS \`events\` WHERE and(ifNull(equals(${property('`events`.`properties`', '{p_4:String}')}, {p_5:String}), 0), notEquals(\`events\`.\`event\`, {p_6:String}))`,
    );
    assert.deepEqual(columns, ['b', 'nested__a__b']);
    assert.deepEqual(params, { team_id: 7, p_0: '$browser', p_1: 'nested', p_2: 'a', p_3: 'b', p_4: '$os', p_5: 'Mac', p_6: 'x' });
  });

  test('index access into properties reads JSON by position', () => {
    const { sql, params } = printed("select properties.arr.1, properties['k'][2] from events");
    assert.equal(
      sql,
      `SELECT ${property('`events`.`properties`', '{p_0:String}', '{p_1:Int64}')} AS \`_hogql_col_0\`, ${property('`events`.`properties`', '{p_2:String}', '{p_3:Int64}')} AS \`_hogql_col_1\` FROM ${events(['properties'])} AS \`events\``,
    );
    assert.deepEqual(params, { team_id: 7, p_0: 'arr', p_1: 1, p_2: 'k', p_3: 2 });
  });

  test('person fields join the current person through the distinct id, inside the guarded events', () => {
    const { sql, columns } = printed('select person.properties.email, person_id from events');
    assert.equal(
      sql,
      `SELECT ${property('`events`.`__person__properties`', '{p_0:String}')} AS \`_hogql_col_0\`, \`events\`.\`__current_person_id\` AS \`_hogql_col_1\` FROM ${events([], ['person', 'pdi'])} AS \`events\``,
    );
    assert.deepEqual(columns, ['email', 'person_id']);
    assert.match(
      events([], ['person']),
      /LEFT JOIN \(\s*SELECT distinct_id, person_id\s*FROM person_distinct_ids FINAL\s*WHERE team_id = \{team_id:Int64\} AND is_deleted = 0\) AS __pdi/,
    );
    assert.match(
      events([], ['person']),
      /LEFT JOIN \(\s*SELECT id, person_id, properties, is_identified, created_at\s*FROM persons FINAL\s*WHERE team_id = \{team_id:Int64\} AND is_deleted = 0\) AS __person/,
    );
    assertGuarded(sql);
  });

  test('joins of every kind print each table as its guarded subquery', () => {
    const { sql } = printed(
      'select e.event, p.id, d.distinct_id, g.key from events e left join persons p on p.id = e.person_id ' +
        'full outer join person_distinct_ids d on d.distinct_id = e.distinct_id right join groups g on g.key = e.$group_0 cross join numbers(2) n',
    );
    assert.equal(
      sql,
      'SELECT `e`.`event` AS `_hogql_col_0`, `p`.`id` AS `_hogql_col_1`, `d`.`distinct_id` AS `_hogql_col_2`, `g`.`key` AS `_hogql_col_3` ' +
        `FROM ${events(['event', 'distinct_id', '$group_0'], ['pdi'])} AS \`e\` LEFT JOIN ${PERSONS} AS \`p\` ON equals(\`p\`.\`id\`, \`e\`.\`__current_person_id\`) ` +
        `FULL OUTER JOIN ${PDIS} AS \`d\` ON equals(\`d\`.\`distinct_id\`, \`e\`.\`distinct_id\`) ` +
        `RIGHT JOIN ${GROUPS} AS \`g\` ON equals(\`g\`.\`key\`, \`e\`.\`$group_0\`) CROSS JOIN numbers({p_0:UInt64}) AS \`n\``,
    );
    assertGuarded(sql);
  });

  test('subqueries, IN subqueries, UNION ALL and CTEs are guarded too', () => {
    for (const text of [
      'select t.event from (select event from events) t',
      'select event from events where distinct_id in (select distinct_id from person_distinct_ids where person_id in (select id from persons))',
      'select event from events union all select key from groups union all select distinct_id from person_distinct_ids',
      'with x as (select event from events), y as (select id from persons) select event from x, y',
      'select (select count() from events) as c',
    ]) {
      assertGuarded(printed(text).sql);
    }
    assert.equal(
      printed('select t.event from (select event from events) t').sql,
      `SELECT \`t\`.\`event\` AS \`_hogql_col_0\` FROM (SELECT \`events\`.\`event\` AS \`event\` FROM ${events(['event'])} AS \`events\`) AS \`t\``,
    );
  });

  test('the events subquery selects only the columns the query reads', () => {
    assert.equal(printed('select count() from events').sql, `SELECT count() AS \`_hogql_col_0\` FROM ${events([])} AS \`events\``);
    assert.match(events([]), /^\(SELECT __events\.`team_id` AS `team_id` FROM events AS __events WHERE/);
    const using = printed('select count() from events a join events b using (distinct_id)').sql;
    assert.equal(
      using,
      `SELECT count() AS \`_hogql_col_0\` FROM ${events(['distinct_id'])} AS \`a\` JOIN ${events(['distinct_id'])} AS \`b\` USING (\`distinct_id\`)`,
    );
    const star = printed('select * from events').sql;
    assert.ok(star.includes(' AS `$window_id`') && star.includes(' AS `elements_chain`') && !star.includes('person_properties'), star);
  });

  test('an OR in the query cannot widen the guard: the guard is inside the table', () => {
    const { sql } = printed('select count() from events where 1 = 1 or team_id != 7');
    assert.equal(
      sql,
      `SELECT count() AS \`_hogql_col_0\` FROM ${events(['team_id'])} AS \`events\` WHERE or(equals({p_0:Int64}, {p_1:Int64}), notEquals(\`events\`.\`team_id\`, {p_2:Int64}))`,
    );
  });

  test('HogQL null semantics', () => {
    const { sql: simple } = printed("select event = null, event != null, concat('a', properties.b), properties.a ?? 'none' from events");
    assert.equal(
      simple,
      `SELECT isNull(\`events\`.\`event\`) AS \`_hogql_col_0\`, isNotNull(\`events\`.\`event\`) AS \`_hogql_col_1\`, ` +
        `concat(ifNull(toString({p_0:String}), ''), ifNull(toString(${property('`events`.`properties`', '{p_1:String}')}), '')) AS \`_hogql_col_2\`, ` +
        `ifNull(${property('`events`.`properties`', '{p_2:String}')}, {p_3:String}) AS \`_hogql_col_3\` FROM ${events(['event', 'properties'])} AS \`events\``,
    );
  });

  test('HogQL functions: OrNull conversions, the project time zone, count(*)', () => {
    const { sql, params } = printed("select toInt('1'), toFloat('x'), toDateTime('2024-01-01'), now(), count(*) from events");
    assert.equal(
      sql,
      "SELECT accurateCastOrNull({p_0:String}, 'Int64') AS `_hogql_col_0`, accurateCastOrNull({p_1:String}, 'Float64') AS `_hogql_col_1`, " +
        'parseDateTime64BestEffortOrNull({p_2:String}, 6, {p_3:String}) AS `_hogql_col_2`, now64(6, {p_3:String}) AS `_hogql_col_3`, ' +
        `count() AS \`_hogql_col_4\` FROM ${events([])} AS \`events\``,
    );
    assert.equal(params.p_3, 'Europe/Berlin');
    const { sql: times } = printed('select toDateTime(timestamp), toDate(timestamp), toDate(properties.day) from events');
    assert.equal(
      times,
      'SELECT toDateTime64(toTimeZone(`events`.`timestamp`, {p_0:String}), 6, {p_0:String}) AS `_hogql_col_0`, toDate(toTimeZone(`events`.`timestamp`, {p_0:String})) AS `_hogql_col_1`, ' +
        `toDateOrNull(${property('`events`.`properties`', '{p_1:String}')}) AS \`_hogql_col_2\` FROM ${events(['timestamp', 'properties'])} AS \`events\``,
    );
  });

  test('placeholders are bound values; lists become one array parameter', () => {
    const { sql, params } = printed('select count() from events where distinct_id in {ids} limit {n}', { ids: ['a', 'b'], n: 3 });
    assert.equal(
      sql,
      `SELECT count() AS \`_hogql_col_0\` FROM ${events(['distinct_id'])} AS \`events\` WHERE ifNull((\`events\`.\`distinct_id\` IN {p_0:Array(String)}), 0) LIMIT {p_1:Int64}`,
    );
    assert.deepEqual(params, { team_id: 7, p_0: ['a', 'b'], p_1: 3 });
  });

  test('strings never reach the SQL text, whatever they hold', () => {
    const { sql, params } = printed("select 'x'') OR 1=1 --', '\\' UNION ALL SELECT * FROM system.tables' from events");
    assert.ok(!sql.includes('system.tables') && !sql.includes('OR 1=1'), sql);
    assert.deepEqual(Object.values(params).slice(1), ["x') OR 1=1 --", "' UNION ALL SELECT * FROM system.tables"]);
  });

  test('the select list, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT BY, LIMIT and OFFSET print in ClickHouse order', () => {
    const { sql: full } = printed(
      'select distinct event as e2 from events where 1 group by event having count() > 0 order by event desc limit 1 by event limit 5 offset 2',
    );
    assert.equal(
      full,
      `SELECT DISTINCT \`events\`.\`event\` AS \`e2\` FROM ${events(['event'])} AS \`events\` WHERE {p_0:Int64} GROUP BY \`events\`.\`event\` HAVING greater(count(), {p_1:Int64}) ` +
        'ORDER BY `events`.`event` DESC LIMIT {p_2:Int64} BY `events`.`event` LIMIT {p_3:Int64} OFFSET {p_4:Int64}',
    );
  });
});

describe('HogQL printer: times', () => {
  test("stored times read in the project's time zone, as PostHog reads them; in a UTC project as they are", () => {
    const { sql, params } = printed('select toStartOfDay(timestamp), person.created_at from events');
    assert.equal(
      sql,
      'SELECT toStartOfDay(toTimeZone(`events`.`timestamp`, {p_0:String})) AS `_hogql_col_0`, toTimeZone(`events`.`__person__created_at`, {p_0:String}) AS `_hogql_col_1` ' +
        `FROM ${events(['timestamp'], ['person'])} AS \`events\``,
    );
    assert.equal(params.p_0, 'Europe/Berlin');
    const utc = printSelect(parseSelect('select toStartOfDay(timestamp) from events'), {
      params: new SqlParams({ team_id: 7 }),
      timezone: 'UTC',
      values: null,
    });
    assert.equal(utc.sql, `SELECT toStartOfDay(\`events\`.\`timestamp\`) AS \`_hogql_col_0\` FROM ${events(['timestamp'])} AS \`events\``);
  });
});

describe('HogQL printer: IN COHORT', () => {
  test("the cohort's membership condition, compiled beforehand, reads the left side", () => {
    const params = new SqlParams({ team_id: 7 });
    const cohorts = new Map([[3, `${COHORT_PERSON} IN (SELECT person_id FROM members)`]]);
    const { sql } = printSelect(parseSelect('select count() from events where person_id in cohort 3 and person_id not in cohort 3'), {
      params,
      timezone: 'UTC',
      values: null,
      cohorts,
    });
    assert.equal(
      sql,
      `SELECT count() AS \`_hogql_col_0\` FROM ${events([], ['pdi'])} AS \`events\` WHERE and((\`events\`.\`__current_person_id\` IN (SELECT person_id FROM members)), ` +
        'not((`events`.`__current_person_id` IN (SELECT person_id FROM members))))',
    );
    assert.throws(
      () => printSelect(parseSelect('select 1 from events where person_id in cohort 4'), { params, timezone: 'UTC', values: null, cohorts }),
      /Cohort 4 does not exist\./,
    );
    assert.throws(() => printed("select 1 from events where person_id in cohort 'name'"), /IN COHORT takes the integer id of a cohort/);
  });
});

describe('HogQL printer: refusals', () => {
  test('unknown tables, ClickHouse system tables and table functions other than numbers()', () => {
    queryError('select * from system.tables', 'Unknown table `system.tables`.');
    queryError('select * from information_schema.tables', 'Unknown table `information_schema.tables`.');
    queryError('select * from default.events', 'Unknown table `default.events`.');
    queryError('select * from event_uuids', 'Unknown table `event_uuids`.');
    queryError('select * from raw_persons', 'Unknown table `raw_persons`.');
    queryError("select * from file('/etc/passwd')", 'Unknown table `file`.');
    queryError("select * from url('http://x')", 'Unknown table `url`.');
    queryError("select * from remote('h', 'db.t')", 'Unknown table `remote`.');
    queryError('select * from events(1)', "Table 'events' does not accept arguments");
    queryError('select * from numbers', "Table function 'numbers' requires arguments");
    queryError('select * from numbers()', "Table function 'numbers' requires at least 1 argument");
    queryError('select * from numbers(1, 2, 3)', "Table function 'numbers' requires at most 2 arguments");
  });

  test('functions outside the allow-list never print', () => {
    queryError('select sleep(3)', "Unsupported function call 'sleep(...)'");
    queryError("select file('/etc/passwd')", "Unsupported function call 'file(...)'");
    queryError("select dictGet('d', 'a', 1)", "Unsupported function call 'dictGet(...)'");
    queryError('select currentDatabase()', "Unsupported function call 'currentDatabase(...)'");
    queryError('select coutn()', "Unsupported function call 'coutn(...)' Perhaps you meant 'count(...)'?");
  });

  test('FINAL, SAMPLE, unresolvable fields, zero indexes, placeholders without values', () => {
    queryError('select 1 from events final', 'The FINAL keyword is not supported in HogQL: tables are read at their current version already');
    queryError('select no_field from events', 'Unable to resolve field: no_field');
    queryError('select properties.arr.0 from events', 'SQL indexes start from one, not from zero. E.g: array[1]');
    queryError('select {x}', 'Unresolved placeholder: {x}', null, HogQLPlaceholderError);
    queryError('select {x}', 'Placeholder {x} is not available in this context. You can use the following: a, b', { a: 1, b: 2 }, HogQLPlaceholderError);
    queryError('select e.event from events e, events e', 'Table alias "e" is used more than once in the same SELECT');
    queryError('with x as (select * from x) select * from x', 'Recursive CTE "x" is not supported');
  });
});
