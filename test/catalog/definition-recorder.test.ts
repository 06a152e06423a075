import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { DefinitionRecorder } from '../../src/definitions/definition-recorder.js';
import { EventDefinitionRepository } from '../../src/definitions/event-definition-repository.js';
import { PropertyDefinitionRepository } from '../../src/definitions/property-definition-repository.js';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';

const T0 = Date.UTC(2024, 5, 15, 10, 20, 0);
const MINUTE = 60_000;

for (const backend of CATALOG_BACKENDS) {
  describe(`definition recorder on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    let clock = T0;
    let recorder: DefinitionRecorder;

    function recorderAt(now: () => number): DefinitionRecorder {
      return new DefinitionRecorder(
        catalog.db,
        new EventDefinitionRepository(catalog.db, catalog.dialect),
        new PropertyDefinitionRepository(catalog.db, catalog.dialect),
        now,
      );
    }

    before(async () => {
      ({ catalog, dispose } = await backend.open());
    });
    after(() => dispose());
    beforeEach(async () => {
      await catalog.db.deleteFrom('event_definitions').execute();
      await catalog.db.deleteFrom('property_definitions').execute();
      await catalog.db.deleteFrom('event_properties').execute();
      clock = T0;
      recorder = recorderAt(() => clock);
    });

    async function eventDefinitions(teamId = 1) {
      return catalog.db.selectFrom('event_definitions').select(['name', 'created_at', 'last_seen_at']).where('team_id', '=', teamId).orderBy('name').execute();
    }

    async function propertyDefinitions(teamId = 1) {
      const rows = await catalog.db
        .selectFrom('property_definitions')
        .select(['name', 'type', 'group_type_index', 'property_type', 'is_numerical'])
        .where('team_id', '=', teamId)
        .orderBy('type')
        .orderBy('name')
        .execute();
      return rows.map((row) => ({ ...row, type: Number(row.type), group_type_index: Number(row.group_type_index), is_numerical: Number(row.is_numerical) }));
    }

    async function links(teamId = 1) {
      const rows = await catalog.db
        .selectFrom('event_properties')
        .select(['event', 'property'])
        .where('team_id', '=', teamId)
        .orderBy('event')
        .orderBy('property')
        .execute();
      return rows.map((row) => `${row.event}:${row.property}`);
    }

    test('tells which events would add anything: only those not yet stored this period', async () => {
      const order = { event: 'order placed', properties: { amount: 5, $set: { plan: 'pro' } } };
      assert.equal(recorder.adds(1, order, clock), true, 'never recorded');
      await recorder.record(1, [order]);
      // The first sighting of keys already stored settles them; from then on the event adds nothing.
      await recorder.record(1, [order]);
      assert.equal(recorder.adds(1, order, clock), false);
      assert.equal(recorder.adds(1, { ...order, properties: { amount: 7, $set: { plan: 'team' } } }, clock), false, 'other values, same keys');
      assert.equal(recorder.adds(1, { ...order, properties: { amount: 5, coupon: 'x' } }, clock), true, 'a new event property');
      assert.equal(recorder.adds(1, { ...order, properties: { amount: 5, $set_once: { first: 'a' } } }, clock), true, 'a new person property');
      assert.equal(recorder.adds(2, order, clock), true, 'another project');
      assert.equal(recorder.adds(1, order, clock + 60 * MINUTE), true, 'the next hour moves last_seen_at');
      assert.equal(recorder.adds(1, { event: '$groupidentify', properties: {} }, clock), true, 'group properties are not remembered this way');
      assert.equal(recorder.adds(1, { event: '$$plugin_metrics', properties: {} }, clock), false, 'never recorded');
    });

    test('records event, event property and person property definitions with their links', async () => {
      await recorder.record(1, [
        {
          event: 'purchase',
          properties: {
            price: 9.99,
            plan: 'pro',
            paid: true,
            meta: { a: 1 },
            $set: { email: 'a@b.c', age: 30 },
            $set_once: { first_seen: '2024-01-01' },
            $unset: ['x'],
            $groups: { company: 'acme' },
            $group_0: 'acme',
            '$feature/beta': true,
          },
        },
        { event: '$pageview', properties: { $current_url: 'https://x.io' } },
      ]);

      const iso = new Date(T0).toISOString();
      assert.deepEqual(await eventDefinitions(), [
        { name: '$pageview', created_at: iso, last_seen_at: iso },
        { name: 'purchase', created_at: iso, last_seen_at: iso },
      ]);
      assert.deepEqual(await propertyDefinitions(), [
        { name: '$current_url', type: 1, group_type_index: -1, property_type: 'String', is_numerical: 0 },
        { name: '$feature/beta', type: 1, group_type_index: -1, property_type: 'String', is_numerical: 0 },
        { name: 'meta', type: 1, group_type_index: -1, property_type: null, is_numerical: 0 },
        { name: 'paid', type: 1, group_type_index: -1, property_type: 'Boolean', is_numerical: 0 },
        { name: 'plan', type: 1, group_type_index: -1, property_type: 'String', is_numerical: 0 },
        { name: 'price', type: 1, group_type_index: -1, property_type: 'Numeric', is_numerical: 1 },
        { name: 'age', type: 2, group_type_index: -1, property_type: 'Numeric', is_numerical: 1 },
        { name: 'email', type: 2, group_type_index: -1, property_type: 'String', is_numerical: 0 },
        { name: 'first_seen', type: 2, group_type_index: -1, property_type: 'DateTime', is_numerical: 0 },
      ]);
      assert.deepEqual(await links(), ['$pageview:$current_url', 'purchase:meta', 'purchase:paid', 'purchase:plan', 'purchase:price']);
    });

    test('$groupidentify records only group properties of its group type', async () => {
      await recorder.record(1, [
        {
          event: '$groupidentify',
          properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 5, name: 'Acme' }, $lib: 'web' },
          groupTypeIndex: 2,
        },
        { event: '$groupidentify', properties: { $group_type: 'team', $group_set: { size: 1 } } },
      ]);
      assert.deepEqual(
        (await eventDefinitions()).map((row) => row.name),
        ['$groupidentify'],
      );
      assert.deepEqual(await propertyDefinitions(), [
        { name: 'name', type: 3, group_type_index: 2, property_type: 'String', is_numerical: 0 },
        { name: 'seats', type: 3, group_type_index: 2, property_type: 'Numeric', is_numerical: 1 },
      ]);
      assert.deepEqual(await links(), []);
    });

    test('skips $$plugin_metrics, names over 200 bytes and sanitises NUL', async () => {
      const long = 'é'.repeat(101);
      await recorder.record(1, [
        { event: '$$plugin_metrics', properties: { a: 1 } },
        { event: long, properties: { b: 1 } },
        { event: 'x'.repeat(200), properties: { [long]: 1, ['k'.repeat(200)]: 2, $set: { [long]: 3 } } },
        { event: 'nul\u0000name', properties: { 'key\u0000': 'v' } },
      ]);
      assert.deepEqual(
        (await eventDefinitions()).map((row) => row.name),
        ['nul\uFFFDname', 'x'.repeat(200)],
      );
      assert.deepEqual(
        (await propertyDefinitions()).map((row) => row.name),
        ['key\uFFFD', 'k'.repeat(200)],
      );
      assert.deepEqual(await links(), ['nul\uFFFDname:key\uFFFD', `${'x'.repeat(200)}:${'k'.repeat(200)}`]);
    });

    test('the first seen type sticks; an untyped definition takes the first real type', async () => {
      await recorder.record(1, [
        { event: 'e', properties: { amount: 5, note: null } },
        { event: 'e', properties: { amount: 'five', note: { x: 1 } } },
      ]);
      await recorder.record(1, [{ event: 'e', properties: { amount: 'six', note: 'hello' } }]);
      await recorderAt(() => clock).record(1, [{ event: 'e', properties: { note: 3 } }]);
      assert.deepEqual(await propertyDefinitions(), [
        { name: 'amount', type: 1, group_type_index: -1, property_type: 'Numeric', is_numerical: 1 },
        { name: 'note', type: 1, group_type_index: -1, property_type: 'String', is_numerical: 0 },
      ]);
    });

    test('last_seen_at is server time, rewritten at most hourly and only forward', async () => {
      await recorder.record(1, [{ event: 'signup', properties: {} }]);
      clock = T0 + 30 * MINUTE;
      await recorder.record(1, [{ event: 'signup', properties: {} }]);
      assert.deepEqual(await eventDefinitions(), [{ name: 'signup', created_at: new Date(T0).toISOString(), last_seen_at: new Date(T0).toISOString() }]);

      clock = T0 + 45 * MINUTE;
      await recorder.record(1, [{ event: 'signup', properties: {} }]);
      const later = new Date(T0 + 45 * MINUTE).toISOString();
      assert.deepEqual(await eventDefinitions(), [{ name: 'signup', created_at: new Date(T0).toISOString(), last_seen_at: later }]);

      await recorderAt(() => T0 - 60 * MINUTE).record(1, [{ event: 'signup', properties: {} }]);
      assert.equal((await eventDefinitions())[0]?.last_seen_at, later);
    });

    test('known definitions are skipped without writing; forgetEvent lets a deleted one come back', async () => {
      await recorder.record(1, [{ event: 'known', properties: { p: 1 } }]);
      await catalog.db.deleteFrom('event_definitions').execute();
      await catalog.db.deleteFrom('property_definitions').execute();
      await catalog.db.deleteFrom('event_properties').execute();
      await recorder.record(1, [{ event: 'known', properties: { p: 2 } }]);
      assert.deepEqual(await eventDefinitions(), []);
      assert.deepEqual(await propertyDefinitions(), []);

      recorder.forgetEvent(1, 'known');
      await recorder.record(1, [{ event: 'known', properties: { p: 2 } }]);
      assert.deepEqual(
        (await eventDefinitions()).map((row) => row.name),
        ['known'],
      );
    });

    test('projects are kept apart', async () => {
      await recorder.record(1, [{ event: 'shared', properties: { a: 1 } }]);
      await recorder.record(2, [{ event: 'shared', properties: { a: 'x' } }]);
      assert.equal((await eventDefinitions(2)).length, 1);
      assert.deepEqual(
        (await propertyDefinitions(2)).map((row) => row.property_type),
        ['String'],
      );
      assert.deepEqual(await links(2), ['shared:a']);
    });

    test('a large batch is written in multi-row chunks and quickly skipped afterwards', async () => {
      const events = Array.from({ length: 20_000 }, (_, index) => ({
        event: `event_${index % 700}`,
        properties: { [`prop_${index % 900}`]: index, plan: 'free', $set: { [`person_${index % 600}`]: 'x' } },
      }));
      await recorder.record(1, events);
      assert.equal((await eventDefinitions()).length, 700);
      assert.equal((await propertyDefinitions()).length, 900 + 1 + 600);
      // (index % 700, index % 900) repeats every lcm(700, 900) = 6300 events; plus `plan` on each event.
      assert.equal((await links()).length, 6300 + 700);

      const started = performance.now();
      await recorder.record(1, events);
      const elapsedMs = performance.now() - started;
      assert.ok(elapsedMs < 250, `a batch of known definitions took ${elapsedMs.toFixed(0)} ms`);
    });
  });
}
