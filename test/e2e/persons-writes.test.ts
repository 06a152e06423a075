import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { sendBatch } from '../support/capture.js';
import { PERSONS, badPersonId, jsonParam, personOf, startWithKeys, validationError } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

const required = (attr: string) => validationError('This field is required.', attr, 'required');

/** Person writes through HTTP on persons made by captures and by the posthog-node SDK. */
describe('persons API: writes and activity', () => {
  let server: TallyServer;
  let keys: Record<string, string>;
  const sdkErrors: unknown[] = [];

  before(async () => {
    ({ server, keys } = await startWithKeys({
      reader: 'person:read',
      writer: 'person:write',
      activity: 'activity_log:read',
      cohortOnly: 'cohort:read',
    }));
    await sendBatch(server, [
      { event: 'seen', distinct_id: 'w-alice', timestamp: '2024-01-01T00:00:00Z', properties: { $set: { email: 'wa@x.io', plan: 'free', keep: 1 } } },
      { event: 'seen', distinct_id: 'w-split-a', timestamp: '2024-01-02T00:00:00Z', properties: { $set: { plan: 'pro' } } },
      { event: '$identify', distinct_id: 'w-split-b', timestamp: '2024-01-02T00:01:00Z', properties: { $anon_distinct_id: 'w-split-a' } },
      { event: '$create_alias', distinct_id: 'w-split-b', timestamp: '2024-01-02T00:02:00Z', properties: { alias: 'w-split-c' } },
      { event: 'seen', distinct_id: 'm-1', timestamp: '2024-01-03T00:00:00Z', properties: { $set: { plan: 'team' } } },
      { event: '$identify', distinct_id: 'm-2', timestamp: '2024-01-03T00:01:00Z', properties: { $anon_distinct_id: 'm-1' } },
      { event: '$create_alias', distinct_id: 'm-2', timestamp: '2024-01-03T00:02:00Z', properties: { alias: 'm-3' } },
      { event: 'seen', distinct_id: 'gone', timestamp: '2024-01-04T00:00:00Z', properties: { $set: { email: 'gone@x.io' } } },
    ]);
    const client = new PostHog(server.projectToken, { host: server.url, flushAt: 20, flushInterval: 0 });
    client.on('error', (error) => sdkErrors.push(error));
    client.capture({ distinctId: 'sdk-anon', event: 'page viewed', properties: { $set: { plan: 'trial' } } });
    client.identify({ distinctId: 'sdk-user', properties: { $set: { email: 'sdk@x.io' }, $anon_distinct_id: 'sdk-anon' } });
    client.alias({ distinctId: 'sdk-user', alias: 'sdk-alias' });
    await client.shutdown();
  });
  after(() => server.dispose());

  test('posthog-node identify and alias end in one identified person, readable by any of its ids', async () => {
    assert.deepEqual(sdkErrors, []);
    const person = await personOf(server, 'sdk-alias');
    assert.deepEqual(person.distinct_ids, ['sdk-anon', 'sdk-user', 'sdk-alias']);
    assert.equal(person.is_identified, true);
    assert.equal(person.name, 'sdk@x.io');
    assert.equal(person.properties.plan, 'trial');
    const retrieved = await server.get(`${PERSONS}/${person.uuid}/`);
    assert.deepEqual(retrieved.body, person);
  });

  test('PATCH merges properties and answers the Person; reads see it at once', async () => {
    const alice = await personOf(server, 'w-alice');
    const response = await server.patch(`${PERSONS}/${alice.id}/`, { properties: { plan: 'pro', seats: 3 } });
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {
      ...alice,
      properties: { ...alice.properties, plan: 'pro', seats: 3 },
    });
    const retrieved = await server.get(`${PERSONS}/${alice.id}/`);
    assert.deepEqual(retrieved.body.properties, response.body.properties);
    const listed = await server.get(`${PERSONS}/?properties=${jsonParam([{ key: 'seats', value: 3, type: 'person' }])}`);
    assert.deepEqual(
      listed.body.results.map((p: any) => p.id),
      [alice.id],
    );
  });

  test('PATCH and PUT by UUID; other fields are ignored', async () => {
    const alice = await personOf(server, 'w-alice');
    const patched = await server.patch(`${PERSONS}/${alice.uuid}/`, { properties: { via: 'uuid' }, name: 'ignored', distinct_ids: [] });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.properties.via, 'uuid');
    assert.deepEqual(patched.body.distinct_ids, ['w-alice']);
    const put = await server.request('PUT', `${PERSONS}/${alice.id}/`, { body: { properties: { via: 'put' } } });
    assert.equal(put.status, 200);
    assert.equal(put.body.properties.via, 'put');
    assert.equal(put.body.properties.keep, 1);
  });

  test('PATCH errors: missing or non-object properties, bad and unknown ids', async () => {
    const alice = await personOf(server, 'w-alice');
    const missing = await server.patch(`${PERSONS}/${alice.id}/`, {});
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, required('properties'));
    assert.deepEqual((await server.patch(`${PERSONS}/${alice.id}/`, { properties: null })).body, required('properties'));
    assert.deepEqual(
      (await server.patch(`${PERSONS}/${alice.id}/`, { properties: ['a'] })).body,
      validationError('Expected a dictionary of items but got type "list".', 'properties', 'not_a_dict'),
    );
    assert.deepEqual(
      (await server.patch(`${PERSONS}/${alice.id}/`, { properties: 'x' })).body,
      validationError('Expected a dictionary of items but got type "str".', 'properties', 'not_a_dict'),
    );
    const bad = await server.patch(`${PERSONS}/w-alice/`, { properties: {} });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body, badPersonId('w-alice'));
    for (const id of ['999999', '99999999999999999999', '00000000-0000-4000-8000-000000000000']) {
      const unknown = await server.patch(`${PERSONS}/${id}/`, { properties: {} });
      assert.equal(unknown.status, 404, id);
      assert.deepEqual(unknown.body, ERRORS.notFound);
    }
  });

  test('update_property: from the body or the query string; null is a value', async () => {
    const alice = await personOf(server, 'w-alice');
    const fromBody = await server.post(`${PERSONS}/${alice.id}/update_property/`, { key: 'color', value: { r: 1 } });
    assert.equal(fromBody.status, 200);
    assert.deepEqual(fromBody.body.properties.color, { r: 1 });
    const fromQuery = await server.post(`${PERSONS}/${alice.id}/update_property/?key=size&value=10`);
    assert.equal(fromQuery.status, 200);
    assert.equal(fromQuery.body.properties.size, '10');
    const toNull = await server.post(`${PERSONS}/${alice.id}/update_property/`, { key: 'color', value: null });
    assert.equal(toNull.status, 200);
    assert.equal(toNull.body.properties.color, null);
    assert.equal('color' in toNull.body.properties, true);
  });

  test('update_property errors: value first, then key', async () => {
    const alice = await personOf(server, 'w-alice');
    const path = `${PERSONS}/${alice.id}/update_property/`;
    assert.deepEqual((await server.post(path, {})).body, required('value'));
    assert.deepEqual((await server.post(path, { value: 1 })).body, required('key'));
    assert.deepEqual((await server.post(path, { key: '', value: 1 })).body, validationError('This field may not be blank.', 'key', 'blank'));
    assert.deepEqual((await server.post(path, { key: ['a'], value: 1 })).body, validationError('Not a valid string.', 'key', 'invalid'));
    assert.equal((await server.post(`${PERSONS}/424242/update_property/`, { key: 'a', value: 1 })).status, 404);
  });

  test('delete_property: removes the key ($unset in the body or the query); an absent key is fine', async () => {
    const alice = await personOf(server, 'w-alice');
    const removed = await server.post(`${PERSONS}/${alice.id}/delete_property/`, { $unset: 'size' });
    assert.equal(removed.status, 200);
    assert.equal('size' in removed.body.properties, false);
    const viaQuery = await server.post(`${PERSONS}/${alice.id}/delete_property/?$unset=via`);
    assert.equal(viaQuery.status, 200);
    assert.equal('via' in viaQuery.body.properties, false);
    const absent = await server.post(`${PERSONS}/${alice.id}/delete_property/`, { $unset: 'never-there' });
    assert.equal(absent.status, 200);
    assert.deepEqual(absent.body.properties, viaQuery.body.properties);
    const missing = await server.post(`${PERSONS}/${alice.id}/delete_property/`, {});
    assert.deepEqual(missing.body, required('$unset'));
    const listed = await server.get(`${PERSONS}/?properties=${jsonParam([{ key: 'via', operator: 'is_set', type: 'person' }])}`);
    assert.equal(listed.body.count, 0);
  });

  test('split without arguments: every id but the first gets a new person with no properties', async () => {
    const person = await personOf(server, 'w-split-a');
    assert.deepEqual(person.distinct_ids, ['w-split-a', 'w-split-b', 'w-split-c']);
    const response = await server.post(`${PERSONS}/${person.id}/split/`, {});
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { ...person, distinct_ids: ['w-split-a'], name: 'w-split-a' });
    for (const distinctId of ['w-split-b', 'w-split-c']) {
      const split = await personOf(server, distinctId);
      assert.notEqual(split.id, person.id);
      assert.deepEqual(split.distinct_ids, [distinctId]);
      assert.deepEqual(split.properties, {});
      assert.equal(split.is_identified, false);
      assert.equal((await server.get(`${PERSONS}/${split.id}/`)).status, 200);
    }
    assert.equal((await personOf(server, 'w-split-a')).properties.plan, 'pro');
  });

  test('split with main_distinct_id keeps that id; distinct_ids_to_split moves only those', async () => {
    const person = await personOf(server, 'm-1');
    assert.deepEqual(person.distinct_ids, ['m-1', 'm-2', 'm-3']);
    const moved = await server.post(`${PERSONS}/${person.id}/split/`, { distinct_ids_to_split: ['m-3'] });
    assert.equal(moved.status, 200);
    assert.deepEqual(moved.body.distinct_ids, ['m-1', 'm-2']);
    const kept = await server.post(`${PERSONS}/${person.uuid}/split/`, { main_distinct_id: 'm-2' });
    assert.equal(kept.status, 200);
    assert.deepEqual(kept.body.distinct_ids, ['m-2']);
    assert.equal(kept.body.properties.plan, 'team');
    assert.deepEqual((await personOf(server, 'm-1')).properties, {});
  });

  test('split errors', async () => {
    const person = await personOf(server, 'sdk-user');
    const path = `${PERSONS}/${person.id}/split/`;
    const cases: [object, object][] = [
      [{ main_distinct_id: 'nope' }, validationError('"nope" is not a distinct id of this person.', 'main_distinct_id')],
      [
        { main_distinct_id: 'sdk-user', distinct_ids_to_split: ['sdk-anon'] },
        validationError('Send either main_distinct_id or distinct_ids_to_split, not both.'),
      ],
      [{ distinct_ids_to_split: [] }, validationError('Expected a non-empty list of distinct ids.', 'distinct_ids_to_split')],
      [{ distinct_ids_to_split: 'sdk-anon' }, validationError('Expected a non-empty list of distinct ids.', 'distinct_ids_to_split')],
      [{ distinct_ids_to_split: ['sdk-anon', 'x', 'y'] }, validationError('These distinct ids do not belong to this person: x, y.', 'distinct_ids_to_split')],
      [
        { distinct_ids_to_split: ['sdk-anon', 'sdk-user', 'sdk-alias'] },
        validationError('A split must leave the person at least one distinct id.', 'distinct_ids_to_split'),
      ],
    ];
    for (const [body, error] of cases) {
      const response = await server.post(path, body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, error);
    }
    assert.equal((await personOf(server, 'sdk-user')).distinct_ids.length, 3);
  });

  test('DELETE: 204, then gone everywhere; its distinct ids are free for a new person with a new id', async () => {
    const person = await personOf(server, 'gone');
    const response = await server.delete(`${PERSONS}/${person.id}/`);
    assert.equal(response.status, 204);
    assert.equal(response.text, '');
    assert.deepEqual((await server.get(`${PERSONS}/${person.id}/`)).body, ERRORS.notFound);
    assert.equal((await server.delete(`${PERSONS}/${person.id}/`)).status, 404);
    assert.equal((await server.get(`${PERSONS}/?distinct_id=gone`)).body.count, 0);
    assert.equal((await server.get(`${PERSONS}/?search=gone@x.io`)).body.count, 0);
    await sendBatch(server, [{ event: 'back', distinct_id: 'gone', properties: { $set: { back: true } } }]);
    const reborn = await personOf(server, 'gone');
    assert.ok(reborn.id > person.id);
    assert.deepEqual(reborn.properties.back, true);
    assert.equal(reborn.properties.email, undefined);
    const bad = await server.delete(`${PERSONS}/${reborn.id}/?delete_events=maybe`);
    assert.deepEqual(bad.body, validationError('Must be a valid boolean.', 'delete_events', 'invalid'));
    assert.equal((await server.get(`${PERSONS}/${reborn.id}/`)).status, 200);
  });

  test('captures after an API write build on what the API wrote, not on the person as capture last saw it', async () => {
    await sendBatch(server, [{ event: 'seen', distinct_id: 'w-mixed', properties: { $set: { plan: 'free', source: 'capture' } } }]);
    const person = await personOf(server, 'w-mixed');
    assert.equal((await server.patch(`${PERSONS}/${person.id}/`, { properties: { plan: 'pro', api: true } })).status, 200);
    await sendBatch(server, [{ event: 'seen', distinct_id: 'w-mixed', properties: { $set: { later: 1 } } }]);
    const updated = await personOf(server, 'w-mixed');
    assert.equal(updated.id, person.id);
    assert.deepEqual([updated.properties.plan, updated.properties.api, updated.properties.source, updated.properties.later], ['pro', true, 'capture', 1]);
  });

  test('every write runs under the person lock: concurrent writes all land', async () => {
    const alice = await personOf(server, 'w-alice');
    const writes = Array.from({ length: 20 }, (_, index) => server.post(`${PERSONS}/${alice.id}/update_property/`, { key: `k${index}`, value: index }));
    const captures = Array.from({ length: 5 }, (_, index) =>
      sendBatch(server, [{ event: 'seen', distinct_id: 'w-alice', properties: { $set: { [`c${index}`]: index } } }]),
    );
    await Promise.all([...writes, ...captures]);
    const { body } = await server.get(`${PERSONS}/${alice.id}/`);
    for (let index = 0; index < 20; index++) assert.equal(body.properties[`k${index}`], index);
    for (let index = 0; index < 5; index++) assert.equal(body.properties[`c${index}`], index);
    const listed = await personOf(server, 'w-alice');
    assert.deepEqual(listed.properties, body.properties);
  });

  test('activity of a person: newest first, with who and what changed', async () => {
    const alice = await personOf(server, 'w-alice');
    const response = await server.get(`${PERSONS}/${alice.id}/activity/?limit=3`);
    assert.equal(response.status, 200);
    const { results, next, previous, total_count } = response.body;
    assert.equal(total_count, 29);
    assert.equal(previous, null);
    assert.equal(next, `${server.url}${PERSONS}/${alice.id}/activity/?limit=3&page=2`);
    // The newest entries are the concurrent update_property calls, in the order the lock took them.
    for (const item of results) {
      const [changed] = Object.entries(item.detail.changes[0].after);
      assert.deepEqual(changed, [`k${changed![1]}`, changed![1]]);
      assert.deepEqual(item.detail.changes[0].before, {});
    }
    const entry = results[0];
    assert.match(entry.id, /^[0-9a-f-]{36}$/);
    assert.deepEqual(entry.user, { first_name: 'Admin', email: 'admin@localhost' });
    assert.equal(entry.activity, 'updated');
    assert.equal(entry.scope, 'Person');
    assert.equal(entry.item_id, String(alice.id));
    assert.match(entry.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual(Object.keys(entry.detail), ['changes', 'trigger', 'type', 'name', 'short_id']);
    assert.equal(entry.detail.name, alice.uuid);

    const all = await server.get(`${PERSONS}/${alice.id}/activity/?limit=100`);
    const oldestFirst = [...all.body.results].reverse();
    assert.deepEqual(
      oldestFirst.slice(0, 9).map((item: any) => item.activity),
      ['updated', 'updated', 'updated', 'updated', 'updated', 'updated', 'delete_property', 'delete_property', 'delete_property'],
    );
    assert.deepEqual(oldestFirst[0].detail.changes, [
      { type: 'Person', action: 'changed', field: 'properties', before: { plan: 'free' }, after: { plan: 'pro', seats: 3 } },
    ]);
    assert.deepEqual(oldestFirst[6].detail.changes, [{ type: 'Person', action: 'changed', field: 'properties', before: { size: '10' }, after: {} }]);
    const second = await server.get(`${PERSONS}/${alice.id}/activity/?limit=3&page=2`);
    assert.equal(second.body.previous, `${server.url}${PERSONS}/${alice.id}/activity/?limit=3&page=1`);
    assert.deepEqual(second.body.results[0], all.body.results[3]);
  });

  test("activity of splits and deletes; a deleted person's own activity is 404, the project-wide log keeps it", async () => {
    const split = await personOf(server, 'w-split-a');
    const splitLog = await server.get(`${PERSONS}/${split.id}/activity/`);
    assert.equal(splitLog.body.total_count, 1);
    assert.equal(splitLog.body.results[0].activity, 'split_person');
    assert.deepEqual(splitLog.body.results[0].detail.changes, [
      {
        type: 'Person',
        action: 'split',
        field: null,
        before: null,
        after: { distinct_ids: ['w-split-a', 'w-split-b', 'w-split-c'], distinct_ids_to_split: ['w-split-b', 'w-split-c'] },
      },
    ]);
    const all = await server.get(`${PERSONS}/activity/?limit=1000`);
    const deleted = all.body.results.find((entry: any) => entry.activity === 'deleted');
    assert.equal(deleted.detail.changes, null);
    assert.equal((await server.get(`${PERSONS}/${deleted.item_id}/activity/`)).status, 404);
    assert.equal(all.body.total_count, all.body.results.length);
    const page = await server.get(`${PERSONS}/activity/?page=2&limit=2`);
    assert.deepEqual(page.body.results, all.body.results.slice(2, 4));
    for (const query of ['?page=0', '?page=x', '?limit=-2']) {
      const bad = await server.get(`${PERSONS}/activity/${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.attr, query.includes('page') ? 'page' : 'limit');
    }
  });

  test('scopes: reads need person:read, writes person:write, activity activity_log:read', async () => {
    const alice = await personOf(server, 'w-alice');
    const readOnly = await server.patch(`${PERSONS}/${alice.id}/`, { properties: { a: 1 } }, { key: keys.reader });
    assert.equal(readOnly.status, 403);
    assert.deepEqual(readOnly.body, ERRORS.missingScope('person:write'));
    for (const path of ['update_property', 'delete_property', 'split']) {
      const refused = await server.post(`${PERSONS}/${alice.id}/${path}/`, {}, { key: keys.reader });
      assert.deepEqual(refused.body, ERRORS.missingScope('person:write'), path);
    }
    assert.deepEqual((await server.delete(`${PERSONS}/${alice.id}/`, { key: keys.reader })).body, ERRORS.missingScope('person:write'));
    assert.equal((await server.get(`${PERSONS}/${alice.id}/`, { key: keys.writer })).status, 200);
    assert.equal((await server.post(`${PERSONS}/${alice.id}/update_property/`, { key: 'w', value: 1 }, { key: keys.writer })).status, 200);
    assert.deepEqual((await server.get(`${PERSONS}/${alice.id}/activity/`, { key: keys.reader })).body, ERRORS.missingScope('activity_log:read'));
    assert.equal((await server.get(`${PERSONS}/${alice.id}/activity/`, { key: keys.activity })).status, 200);
    assert.deepEqual((await server.get(`${PERSONS}/activity/`, { key: keys.activity })).body, ERRORS.missingScope('person:read'));
    assert.deepEqual((await server.get(`${PERSONS}/activity/`, { key: keys.reader })).body, ERRORS.missingScope('activity_log:read'));
    assert.deepEqual((await server.get(`${PERSONS}/${alice.id}/`, { key: keys.cohortOnly })).body, ERRORS.missingScope('person:read'));
  });
});
