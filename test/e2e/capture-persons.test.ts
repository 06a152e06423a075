import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { readStoredData, type StoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

/**
 * Person processing as PostHog does it (ingestion spec A3), each scenario with its own
 * distinct ids in one server, checked in the catalog and its warehouse replica.
 */
describe('capture: person processing', () => {
  let server: TallyServer;
  let data: StoredData;
  const person = (distinctId: string) => data.persons.find((p) => p.distinct_ids.includes(distinctId));

  before(async () => {
    server = await TallyServer.start();
    const send = (batch: Parameters<typeof sendBatch>[1]) => sendBatch(server, batch);

    await send([
      {
        event: 'signed up',
        distinct_id: 'create-1',
        timestamp: '2024-03-01T10:00:00.123456Z',
        uuid: '01900000-0000-7000-8000-000000000001',
        properties: { $set: { plan: 'free', email: 'c@x.io' }, $set_once: { first: 'a', plan: 'ignored' } },
      },
    ]);
    await send([
      {
        event: 'updated',
        distinct_id: 'create-1',
        timestamp: '2024-03-01T11:00:00Z',
        properties: { $set: { plan: 'pro' }, $set_once: { first: 'b', second: 'b' }, $unset: ['email'] },
      },
      {
        event: 'set and unset',
        distinct_id: 'create-1',
        timestamp: '2024-03-01T12:00:00Z',
        properties: { $set: { plan: 'team', fresh: 1 }, $unset: ['plan', 'fresh'] },
      },
    ]);
    await send([{ event: 'top level', distinct_id: 'top-1', $set: { a: 'top' }, properties: { $set: { a: 'inner', b: 'inner' } } }]);

    // identify: anon person gains the identified id and survives
    await send([
      { event: '$pageview', distinct_id: 'anon-2', timestamp: '2024-03-02T10:00:00Z', properties: { $browser: 'Firefox' } },
      { event: '$identify', distinct_id: 'user-2', timestamp: '2024-03-02T10:05:00Z', properties: { $anon_distinct_id: 'anon-2', $set: { email: 'u2@x.io' } } },
    ]);
    // identify where both have persons: merge into the identified id's person
    await send([
      { event: 'e', distinct_id: 'anon-3', timestamp: '2024-03-03T09:00:00Z', properties: { $set: { shared: 'anon', only_anon: 1 } } },
      { event: 'e', distinct_id: 'user-3', timestamp: '2024-03-03T10:00:00Z', properties: { $set: { shared: 'user' } } },
    ]);
    await send([{ event: '$identify', distinct_id: 'user-3', timestamp: '2024-03-03T11:00:00Z', properties: { $anon_distinct_id: 'anon-3' } }]);
    // refusal: the source person is already identified
    await send([{ event: '$identify', distinct_id: 'user-4a', properties: { $anon_distinct_id: 'anon-4', $set: { name: 'four-a' } } }]);
    await send([{ event: 'e', distinct_id: 'user-4b', properties: { $set: { name: 'four-b' } } }]);
    await send([{ event: '$identify', distinct_id: 'user-4b', properties: { $anon_distinct_id: 'user-4a', $set: { after: true } } }]);
    // $merge_dangerously merges even an identified source
    await send([{ event: '$identify', distinct_id: 'user-5a', properties: { $anon_distinct_id: 'anon-5' } }]);
    await send([{ event: 'e', distinct_id: 'user-5b' }]);
    await send([{ event: '$merge_dangerously', distinct_id: 'user-5b', properties: { alias: 'user-5a' } }]);
    // alias
    await send([{ event: '$create_alias', distinct_id: 'user-6', properties: { distinct_id: 'user-6', alias: 'alias-6' } }]);
    // illegal ids never merge
    await send([{ event: '$identify', distinct_id: 'user-7', properties: { $anon_distinct_id: 'undefined' } }]);
    // identify without $anon_distinct_id does not identify
    await send([{ event: '$identify', distinct_id: 'user-8', properties: { $set: { email: 'eight@x.io' } } }]);
    // person-less events
    await send([
      { event: 'anonymous', distinct_id: 'ghost-9', properties: { $process_person_profile: false, $set: { no: 'person' } } },
      { event: '$identify', distinct_id: 'ghost-9', properties: { $process_person_profile: false, $anon_distinct_id: 'x-9' } },
    ]);
    // groups
    await send([
      {
        event: '$groupidentify',
        distinct_id: '$company_acme',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', size: 5 } },
      },
      { event: 'purchase', distinct_id: 'buyer-10', properties: { $groups: { company: 'acme', team: 42 } } },
      { event: 'purchase again', distinct_id: 'buyer-10', properties: { $group_0: 'stale', $groups: { company: 'acme' }, $process_person_profile: true } },
      { event: 'no groups', distinct_id: 'buyer-10', properties: { $group_1: 'sent as is', $process_person_profile: true } },
    ]);
    await send([
      { event: '$groupidentify', distinct_id: '$company_acme', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { size: 6 } } },
    ]);
    // keys named like Object's own members (built from JSON: a literal `__proto__` sets the prototype)
    await send([
      {
        event: 'e',
        distinct_id: 'keys-11',
        properties: JSON.parse('{"$set_once":{"toString":"t","valueOf":"v"},"$set":{"__proto__":{"n":1},"constructor":"c"}}'),
      },
    ]);
    await send([
      { event: 'e', distinct_id: 'keys-11', properties: JSON.parse('{"$set_once":{"toString":"ignored","hasOwnProperty":"h"},"$set":{"__proto__":{"n":2}}}') },
    ]);
    // Writes through two ids of one person, each batch processed before the next is sent (an API
    // request waits for ingestion): the second write keeps what the first set.
    const processed = () => server.bodyOf('GET', '/api/users/@me/');
    await send([{ event: '$identify', distinct_id: 'user-12', properties: { $anon_distinct_id: 'anon-12', $set: { plan: 'free' } } }]);
    await processed();
    await send([{ event: 'upgraded', distinct_id: 'user-12', properties: { $set: { plan: 'pro' } } }]);
    await processed();
    await send([{ event: 'invited', distinct_id: 'anon-12', properties: { $set: { seats: 3 } } }]);
    await processed();
    await send([{ event: 'renamed', distinct_id: 'user-12', properties: { $set_once: { first_name: 'Ada' } } }]);
    await processed();
    // A merge of two persons each stored by an earlier batch: the merged one's ids come from the catalog.
    await send([{ event: 'e', distinct_id: 'anon-13', timestamp: '2024-03-04T09:00:00Z' }]);
    await processed();
    await send([{ event: '$identify', distinct_id: 'user-13a', timestamp: '2024-03-04T10:00:00Z', properties: { $anon_distinct_id: 'anon-13' } }]);
    await processed();
    await send([{ event: 'e', distinct_id: 'user-13b', timestamp: '2024-03-04T11:00:00Z' }]);
    await processed();
    await send([{ event: '$merge_dangerously', distinct_id: 'user-13b', timestamp: '2024-03-04T12:00:00Z', properties: { alias: 'user-13a' } }]);
    await server.stop();
    data = await readStoredData(server);
  });
  after(() => server.dispose());

  test('a new person takes $set_once then $set, records its creator event and the event time', () => {
    const created = person('create-1')!;
    assert.equal(created.created_at, '2024-03-01T10:00:00.123456Z');
    assert.equal(created.is_identified, false);
    assert.deepEqual(created.properties, {
      first: 'a',
      second: 'b',
      fresh: 1,
      $creator_event_uuid: '01900000-0000-7000-8000-000000000001',
    });
  });

  test('$unset removes keys that existed before the event, even when the event also sets them', () => {
    const created = person('create-1')!;
    assert.equal('email' in created.properties, false);
    assert.equal('plan' in created.properties, false, 'plan existed before the event that set and unset it');
    assert.equal(created.properties.fresh, 1, 'fresh did not exist before the event that set and unset it');
  });

  test('top-level $set wins over properties.$set', () => {
    assert.equal(person('top-1')!.properties.a, 'top');
    assert.equal(person('top-1')!.properties.b, 'inner');
  });

  test('identify: the anonymous person survives, gains the id and is identified', () => {
    const identified = person('user-2')!;
    assert.deepEqual(identified.distinct_ids, ['anon-2', 'user-2']);
    assert.equal(identified.is_identified, true);
    assert.equal(identified.properties.email, 'u2@x.io');
    assert.equal(identified.properties.$initial_browser, 'Firefox');
    assert.equal(identified.created_at, '2024-03-02T10:00:00.000000Z');
  });

  test('a person written through one distinct id and then through another keeps both writes', () => {
    const written = person('anon-12')!;
    assert.deepEqual(written.distinct_ids, ['user-12', 'anon-12']);
    assert.deepEqual(
      { plan: written.properties.plan, seats: written.properties.seats, first_name: written.properties.first_name },
      { plan: 'pro', seats: 3, first_name: 'Ada' },
    );
  });

  test('identify merges two persons: the identified one survives with both ids and earliest creation', () => {
    const merged = person('user-3')!;
    assert.equal(person('anon-3'), merged);
    assert.deepEqual(merged.distinct_ids, ['user-3', 'anon-3']);
    assert.equal(merged.properties.shared, 'user');
    assert.equal(merged.properties.only_anon, 1);
    assert.equal(merged.created_at, '2024-03-03T09:00:00.000000Z');
    assert.equal(merged.is_identified, true);
    assert.equal(data.persons.filter((p) => p.distinct_ids.some((id) => id.endsWith('-3'))).length, 1);
  });

  test('a merge is refused when the source person is already identified', () => {
    const source = person('user-4a')!;
    const target = person('user-4b')!;
    assert.notEqual(source.id, target.id);
    assert.deepEqual(source.distinct_ids, ['user-4a', 'anon-4']);
    assert.equal(target.is_identified, true);
    assert.equal(target.properties.after, true);
  });

  test('$merge_dangerously merges even an identified source', () => {
    const merged = person('user-5b')!;
    assert.equal(person('user-5a'), merged);
    assert.deepEqual(merged.distinct_ids, ['user-5b', 'user-5a', 'anon-5']);
  });

  test('a merge of persons stored by earlier batches moves every stored id, in the order they were gained', () => {
    const merged = person('user-13b')!;
    assert.deepEqual(merged.distinct_ids, ['user-13b', 'anon-13', 'user-13a']);
    assert.equal(person('anon-13'), merged);
    assert.equal(merged.created_at, '2024-03-04T09:00:00.000000Z');
    assert.equal(data.persons.filter((p) => p.distinct_ids.some((id) => id.endsWith('-13') || id.startsWith('user-13'))).length, 1);
  });

  test('$create_alias links the alias to the person', () => {
    assert.deepEqual(person('user-6')!.distinct_ids, ['user-6', 'alias-6']);
    assert.equal(person('user-6')!.is_identified, true);
  });

  test('illegal ids never merge, and identify without an anonymous id does not identify', () => {
    assert.deepEqual(person('user-7')!.distinct_ids, ['user-7']);
    assert.equal(person('undefined'), undefined);
    assert.equal(person('user-8')!.is_identified, false);
    assert.equal(person('user-8')!.properties.email, 'eight@x.io');
  });

  test('$process_person_profile: false creates no person and drops identity events', () => {
    assert.equal(person('ghost-9'), undefined);
    const ghostEvents = data.events.filter((event) => event.distinct_id === 'ghost-9');
    assert.deepEqual(
      ghostEvents.map((event) => event.event),
      ['anonymous'],
    );
    assert.equal(ghostEvents[0]!.person_mode, 'propertyless');
    assert.equal(ghostEvents[0]!.properties.$process_person_profile, false);
    assert.equal('$set' in ghostEvents[0]!.properties, false);
    assert.deepEqual(ghostEvents[0]!.person_properties, {});
  });

  test('groups: $groups become $group_N, $groupidentify keeps the latest $group_set', () => {
    assert.deepEqual(data.groupTypes, { company: 0, team: 1 });
    const purchase = data.events.find((event) => event.event === 'purchase')!;
    assert.equal(purchase.$group_0, 'acme');
    assert.equal(purchase.$group_1, '42');
    assert.deepEqual(purchase.properties, {
      $groups: { company: 'acme', team: 42 },
      $ip: '127.0.0.1',
      $group_0: 'acme',
      $group_1: '42',
    });
    const again = data.events.find((event) => event.event === 'purchase again')!;
    assert.deepEqual([again.$group_0, again.$group_1], ['acme', '']);
    assert.deepEqual(again.properties, { $group_0: 'acme', $groups: { company: 'acme' }, $ip: '127.0.0.1' }, 'a $group_N the event carried is overwritten');
    const noGroups = data.events.find((event) => event.event === 'no groups')!;
    assert.deepEqual([noGroups.$group_0, noGroups.$group_1], ['', '']);
    assert.deepEqual(noGroups.properties, { $group_1: 'sent as is', $ip: '127.0.0.1' });
    assert.deepEqual(data.groups, [{ group_type_index: 0, group_key: 'acme', properties: { name: 'Acme', size: 6 } }]);
  });

  test('events carry the current person and a snapshot of its properties', () => {
    const identify = data.events.find((event) => event.event === '$identify' && event.distinct_id === 'user-2')!;
    assert.equal(identify.person_id, person('user-2')!.uuid);
    assert.equal(identify.person_properties.email, 'u2@x.io');
    const pageview = data.events.find((event) => event.distinct_id === 'anon-2')!;
    assert.equal(pageview.person_properties.email, undefined);
    assert.equal(pageview.properties.$set.$browser, 'Firefox');
    assert.equal(pageview.properties.$set_once.$initial_browser, 'Firefox');
  });

  test('property keys named like Object members are properties like any other, __proto__ included', () => {
    const properties = person('keys-11')!.properties;
    assert.deepEqual(
      Object.keys(properties).filter((key) => key !== '$creator_event_uuid'),
      ['toString', 'valueOf', '__proto__', 'constructor', 'hasOwnProperty'],
    );
    assert.equal(properties.toString, 't', '$set_once keeps the first value');
    assert.equal(properties.valueOf, 'v');
    assert.equal(properties.constructor, 'c');
    assert.equal(properties.hasOwnProperty, 'h');
    assert.deepEqual(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value, { n: 2 }, '$set replaces the value');
  });

  test('the warehouse replicas match the catalog and the outbox is drained', () => {
    assert.equal(data.outboxBacklog, 0);
    assert.equal(data.replicaPersons.size, data.persons.length);
    for (const stored of data.persons) {
      assert.deepEqual(data.replicaPersons.get(stored.uuid)?.properties, stored.properties);
      assert.equal(data.replicaPersons.get(stored.uuid)?.person_id, stored.id);
      for (const distinctId of stored.distinct_ids) assert.equal(data.replicaDistinctIds.get(distinctId), stored.uuid);
    }
    assert.equal(data.replicaDistinctIds.size, data.persons.flatMap((p) => p.distinct_ids).length);
  });
});
