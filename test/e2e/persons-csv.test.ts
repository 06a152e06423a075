import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { sendBatch } from '../support/capture.js';
import { PERSONS, jsonParam, personOf, startWithKeys } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const BULK = 1200;

function rowsOf(text: string): Record<string, string>[] {
  return parse(text, { columns: true, record_delimiter: '\r\n' }) as Record<string, string>[];
}

function headerOf(text: string): string[] {
  return text.slice(0, text.indexOf('\r\n')).split(',');
}

/** format=csv and Accept: text/csv on every person endpoint: flattened columns, sorted header, no row cap. */
describe('persons API: CSV', () => {
  let server: TallyServer;
  let c1: any;

  before(async () => {
    ({ server } = await startWithKeys());
    await sendBatch(server, [
      {
        event: 'seen',
        distinct_id: 'c1',
        timestamp: '2024-02-01T00:00:00Z',
        properties: { $set: { email: 'c1@x.io', note: 'a, "quoted"\r\nline', nested: { a: { b: 1 } }, list: [1, 2], empty: [], flag: true, nothing: null } },
      },
      { event: 'seen', distinct_id: 'c2-anon', timestamp: '2024-02-02T00:00:00Z' },
      { event: '$identify', distinct_id: 'c2', timestamp: '2024-02-02T00:01:00Z', properties: { $anon_distinct_id: 'c2-anon', $set: { plan: 'pro' } } },
    ]);
    await sendBatch(
      server,
      Array.from({ length: BULK }, (_, index) => ({ event: 'seen', distinct_id: `bulk-${index}`, timestamp: '2023-01-01T00:00:00Z' })),
    );
    c1 = await personOf(server, 'c1');
  });
  after(() => server.dispose());

  test('the list as CSV: every matching person (no page cap), header the sorted union of flattened columns', async () => {
    const response = await server.get(`${PERSONS}/?format=csv&limit=10`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.ok(response.text.endsWith('\r\n'));
    const header = headerOf(response.text);
    assert.deepEqual(header, [...header].sort());
    for (const column of [
      'created_at',
      'distinct_ids.0',
      'distinct_ids.1',
      'id',
      'is_identified',
      'name',
      'uuid',
      'properties.email',
      'properties.nested.a.b',
      'properties.list.0',
      'properties.list.1',
      'properties.flag',
      'properties.nothing',
      'properties.plan',
    ]) {
      assert.ok(header.includes(column), column);
    }
    assert.equal(header.includes('properties.empty'), false, 'an empty list gives no column');
    const rows = rowsOf(response.text);
    assert.equal(rows.length, BULK + 2);
    assert.deepEqual(
      rows.slice(0, 2).map((row) => row.id),
      [String((await personOf(server, 'c2')).id), String(c1.id)],
    );
    const first = rows[1]!;
    assert.equal(first['properties.note'], 'a, "quoted"\r\nline');
    assert.equal(first['properties.nested.a.b'], '1');
    assert.equal(first['properties.list.1'], '2');
    assert.equal(first['properties.flag'], 'true');
    assert.equal(first['properties.nothing'], '');
    assert.equal(first['distinct_ids.1'], '');
    assert.equal(first.created_at, '2024-02-01T00:00:00.000000Z');
    assert.equal(first.name, 'c1@x.io');
    assert.equal(rows[0]!['distinct_ids.0'], 'c2-anon');
    assert.equal(rows[0]!['distinct_ids.1'], 'c2');
    assert.equal(new Set(rows.map((row) => row.id)).size, rows.length);
  });

  test('filters apply to the CSV; Accept: text/csv asks for it; format=json wins over Accept', async () => {
    const filtered = await server.get(`${PERSONS}/?format=csv&properties=${jsonParam([{ key: 'email', value: 'c1@x.io', type: 'person' }])}`);
    assert.deepEqual(
      rowsOf(filtered.text).map((row) => row.uuid),
      [c1.uuid],
    );
    const byAccept = await server.get(`${PERSONS}/?search=c1@x.io`, { headers: { accept: 'text/csv' } });
    assert.equal(byAccept.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(rowsOf(byAccept.text)[0]!.uuid, c1.uuid);
    const json = await server.get(`${PERSONS}/?search=c1@x.io&format=json`, { headers: { accept: 'text/csv' } });
    assert.equal(json.body.results[0].uuid, c1.uuid);
    const none = await server.get(`${PERSONS}/?format=csv&distinct_id=nobody`);
    assert.equal(none.status, 200);
    assert.equal(none.text, '');
  });

  test('an unknown format is 404, before anything is written', async () => {
    const list = await server.get(`${PERSONS}/?format=xml`);
    assert.equal(list.status, 404);
    assert.deepEqual(list.body, ERRORS.notFound);
    const write = await server.patch(`${PERSONS}/${c1.id}/?format=xml`, { properties: { written: true } });
    assert.equal(write.status, 404);
    assert.equal((await server.get(`${PERSONS}/${c1.id}/`)).body.properties.written, undefined);
  });

  test('single persons and write answers are one CSV row; DELETE stays 204', async () => {
    const retrieved = await server.get(`${PERSONS}/${c1.id}/?format=csv`);
    assert.deepEqual(
      rowsOf(retrieved.text).map((row) => [row.id, row['properties.email']]),
      [[String(c1.id), 'c1@x.io']],
    );
    const patched = await server.patch(`${PERSONS}/${c1.id}/?format=csv`, { properties: { plan: 'team' } });
    assert.equal(patched.status, 200);
    assert.equal(rowsOf(patched.text)[0]!['properties.plan'], 'team');
    const updated = await server.post(`${PERSONS}/${c1.id}/update_property/?format=csv`, { key: 'seats', value: 4 });
    assert.equal(rowsOf(updated.text)[0]!['properties.seats'], '4');
    const unset = await server.post(`${PERSONS}/${c1.id}/delete_property/?format=csv`, { $unset: 'seats' });
    assert.equal(headerOf(unset.text).includes('properties.seats'), false);
    const bulk = await personOf(server, 'bulk-0');
    const deleted = await server.delete(`${PERSONS}/${bulk.id}/?format=csv`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
  });

  test('activity, values, deletion_status, cohorts and properties_timeline as CSV', async () => {
    const activity = rowsOf((await server.get(`${PERSONS}/${c1.id}/activity/?format=csv`)).text);
    assert.deepEqual(
      activity.map((row) => row.activity),
      ['delete_property', 'updated', 'updated'],
    );
    assert.equal(activity[0]!['detail.changes.0.before.seats'], '4');
    assert.equal(activity[0]!['user.email'], 'admin@localhost');
    const all = rowsOf((await server.get(`${PERSONS}/activity/?format=csv&limit=100`)).text);
    assert.equal(all[0]!.activity, 'deleted');
    const values = rowsOf((await server.get(`${PERSONS}/values/?key=plan&format=csv`)).text);
    assert.deepEqual(values, [
      { name: 'pro', count: '1' },
      { name: 'team', count: '1' },
    ]);
    const bulk = await personOf(server, 'bulk-1');
    await server.delete(`${PERSONS}/${bulk.id}/?delete_events=true`);
    const status = rowsOf((await server.get(`${PERSONS}/deletion_status/?format=csv`)).text);
    assert.deepEqual(
      status.map((row) => [row.person_uuid, row.status, row.delete_verified_at]),
      [[bulk.uuid, 'pending', '']],
    );
    const cohorts = await server.get(`${PERSONS}/cohorts/?person_id=${c1.id}&format=csv`);
    assert.equal(cohorts.status, 200);
    assert.equal(cohorts.text, '');
    const timeline = rowsOf((await server.get(`${PERSONS}/${c1.id}/properties_timeline/?date_from=2024-01-01&date_to=2024-03-01&format=csv`)).text);
    assert.deepEqual(
      timeline.map((row) => [row.timestamp, row.relevant_event_count, row['properties.email']]),
      [['2024-02-01T00:00:00Z', '1', 'c1@x.io']],
    );
  });
});
