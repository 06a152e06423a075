import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { capture } from '../support/definitions.js';
import { captureForeignEvents, hogql, QUERY_TOKEN, startQueryServer } from '../support/query-server.js';
import type { TallyServer } from '../support/tally.js';

/** Text only the foreign project's rows hold. */
const FOREIGN = /FOREIGN_MARKER|foreign_secret|foreign_user/;

describe("query API security: another project's rows are never visible", () => {
  let server: TallyServer;
  let foreignId: number;

  before(async () => {
    const started = await startQueryServer([], { TALLY_QUERY_TIMEOUT_S: '5' });
    server = started.server;
    foreignId = started.foreign.id;
    await capture(server, QUERY_TOKEN, [
      { event: '$pageview', distinct_id: 'shared_id', timestamp: '2024-01-02T00:00:00Z', properties: { marker: 'own' } },
      { event: '$identify', distinct_id: 'shared_id', timestamp: '2024-01-02T00:00:01Z', properties: { $set: { email: 'own@example.com' } } },
      {
        event: '$groupidentify',
        distinct_id: 'shared_id',
        timestamp: '2024-01-02T00:00:02Z',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Own' } },
      },
    ]);
    await captureForeignEvents(server, started.foreign.api_token);
    await capture(server, started.foreign.api_token, [
      {
        event: '$groupidentify',
        distinct_id: 'foreign_user',
        timestamp: '2024-01-03T00:00:00Z',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'FOREIGN_MARKER' } },
      },
    ]);
  });
  after(() => server.dispose());

  async function visible(query: string): Promise<{ status: number; results: string }> {
    const response = await hogql(server, query);
    assert.notEqual(response.status, 500, `${query}: ${response.text}`);
    return { status: response.status, results: JSON.stringify(response.body.results ?? null) };
  }

  test('however the query is written', async () => {
    const queries = [
      'select * from events',
      `select * from events where team_id = ${foreignId}`,
      'select * from events where 1 = 1 or team_id != 1',
      "select * from events where event = 'foreign_secret' or true",
      'select * from (select * from events) t',
      'select * from (select * from (select * from events where 1 or 1))',
      'select a.*, b.* from events a full outer join events b on a.distinct_id = b.distinct_id',
      'select e.*, p.* from events e right join persons p on 1 = 1',
      'select * from events e cross join person_distinct_ids d',
      'select * from events e left join groups g on g.key = e.$group_0',
      'select event, properties from events union all select event, properties from events where team_id != 1',
      'with x as (select * from events where team_id > 0) select * from x',
      'with x as (select * from events), y as (select * from x) select * from y union all select * from events',
      'select count() from events where distinct_id in (select distinct_id from events where team_id != 1)',
      'select (select groupArray(properties) from events where team_id != 1)',
      'select * from events -- where team_id = 1',
      'select * from events /* and team_id = 1 */ where 1',
      "select * from events where event = 'x'' or team_id != 1 --'",
      "select * from events where event = '\\' or 1 = 1 --'",
      "select person.properties.email, pdi.person_id, properties from events where distinct_id = 'shared_id'",
      "select * from person_distinct_ids where distinct_id in ('shared_id', 'foreign_user')",
      'select *, person.properties from person_distinct_ids',
      'select * from persons',
      "select properties from persons where properties.email like '%FOREIGN%' or 1",
      'select * from groups',
      'select group_0.properties from events',
      'select poe.properties, person.properties from events',
      'select distinct team_id from events',
      'select number, (select count() from events) from numbers(3)',
      'select groupArray(event) from events',
    ];
    for (const query of queries) {
      const { status, results } = await visible(query);
      assert.equal(status, 200, query);
      assert.doesNotMatch(results, FOREIGN, query);
    }
    assert.deepEqual(JSON.parse((await visible('select distinct team_id from events')).results), [[1]]);
    assert.deepEqual(JSON.parse((await visible("select person.properties.email from events where distinct_id = 'shared_id' limit 1")).results), [
      ['own@example.com'],
    ]);
    assert.deepEqual(JSON.parse((await visible("select properties.name from groups where key = 'acme'")).results), [['Own']]);
  });

  test('every refused construct answers 400 within a second', async () => {
    const refused = [
      'select * from system.tables',
      'select * from system.one',
      'select * from information_schema.tables',
      'select * from default.events',
      'select * from event_uuids',
      'select * from static_cohort_members',
      'select * from tally_migrations',
      'select * from person',
      'select * from person_distinct_id2',
      'select * from raw_persons',
      'select * from sessions',
      "select * from file('/etc/passwd')",
      "select * from url('http://127.0.0.1:1/', 'CSV', 'a String')",
      "select * from s3('http://127.0.0.1:1/x')",
      "select * from remote('127.0.0.1', 'system', 'one')",
      "select * from mysql('h', 'db', 't', 'u', 'p')",
      "select * from executable('ls', 'TSV', 'a String')",
      'select * from generateRandom()',
      "select * from merge('.*')",
      'select * from events final',
      'select 1 settings readonly = 0',
      'select 1 from events settings max_execution_time = 1000',
      "select 1 into outfile '/tmp/x'",
      'select 1 from events where 1 format JSON',
      'drop table events',
      'truncate table events',
      "insert into events (event) values ('x')",
      'alter table events delete where 1',
      'create table x (a Int8) engine = Memory',
      'optimize table events',
      'system drop dns cache',
      'kill query where 1',
      'attach table events',
      'select 1; drop table events',
      "select dictGet('d', 'a', 1)",
      'select currentDatabase()',
      "select getSetting('max_threads')",
      'select sleep(3)',
      "select * from numbers(10) where hasColumnInTable('system', 'tables', 'name')",
      "select file('/etc/passwd')",
    ];
    for (const query of refused) {
      const started = Date.now();
      const response = await hogql(server, query);
      assert.equal(response.status, 400, `${query}: ${response.text}`);
      assert.ok(Date.now() - started < 1000, `${query} took ${Date.now() - started} ms`);
    }
    const stillThere = await hogql(server, 'select count() from events');
    assert.deepEqual(stillThere.body.results, [[3]]);
  });

  test('generated HogQL: never a 500, never a hang, never a foreign row', async () => {
    const table = fc.constantFrom(
      'events',
      'persons',
      'person_distinct_ids',
      'groups',
      'events e',
      '(select * from events)',
      'numbers(5)',
      'system.tables',
      'x',
    );
    const column = fc.constantFrom(
      '*',
      'event',
      'properties',
      'properties.marker',
      'person.properties.email',
      'distinct_id',
      'team_id',
      'count()',
      'id',
      'key',
      'number',
      'uniq(distinct_id)',
      'toString(timestamp)',
      'nope',
    );
    const predicate = fc.oneof(
      fc.constantFrom(
        '1',
        '0',
        'team_id != 1',
        "event = 'foreign_secret'",
        'true or 1',
        "properties.marker = 'FOREIGN_MARKER'",
        'distinct_id in (select distinct_id from events)',
        'x',
      ),
      fc.string({ maxLength: 12 }).map((text) => `event = '${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`),
      fc.string({ maxLength: 12 }),
    );
    const select = fc.tuple(
      fc.array(column, { minLength: 1, maxLength: 3 }),
      table,
      fc.option(predicate),
      fc.option(fc.constantFrom('limit 5', 'limit 2 offset 1', 'order by 1', 'group by 1')),
    );
    const query = fc.oneof(
      select.map(
        ([columns, from, where, tail]) => `select ${columns.join(', ')} from ${from}${where !== null ? ` where ${where}` : ''}${tail ? ` ${tail}` : ''}`,
      ),
      fc.tuple(select, select).map(([[a, from], [b, other]]) => `select ${a.join(', ')} from ${from} union all select ${b.join(', ')} from ${other}`),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(query, async (text) => {
        const started = Date.now();
        const response = await hogql(server, text);
        assert.ok([200, 400].includes(response.status), `${text}: ${response.status} ${response.text}`);
        assert.ok(Date.now() - started < 10_000, `${text} took ${Date.now() - started} ms`);
        if (response.status === 200) assert.doesNotMatch(JSON.stringify(response.body.results), FOREIGN, text);
      }),
      { numRuns: 150, seed: 1127 },
    );
  });
});
