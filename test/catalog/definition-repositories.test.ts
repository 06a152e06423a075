import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DefinitionRecorder } from '../../src/definitions/definition-recorder.js';
import type { EventDefinitionFilter } from '../../src/definitions/event-definition.js';
import { EventDefinitionRepository } from '../../src/definitions/event-definition-repository.js';
import type { PropertyDefinitionFilter } from '../../src/definitions/property-definition.js';
import { PropertyDefinitionRepository } from '../../src/definitions/property-definition-repository.js';
import { PropertyDefinitionKind } from '../../src/definitions/property-definition-type.js';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';

const T0 = Date.UTC(2024, 5, 15, 10, 0, 0);
const PAGE = { limit: 100, offset: 0 };

const ALL_EVENTS: EventDefinitionFilter = { searchTerms: [], eventType: 'event', ordering: [], excludedNames: [], names: [] };
const EVENT_PROPERTIES: PropertyDefinitionFilter = {
  kind: PropertyDefinitionKind.Event,
  groupTypeIndex: -1,
  searchTerms: [],
  names: [],
  excludedNames: [],
  onlyNumerical: false,
  featureFlags: undefined,
  eventNames: [],
  onlySeenOnEventNames: false,
};

for (const backend of CATALOG_BACKENDS) {
  describe(`definition repositories on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    let events: EventDefinitionRepository;
    let properties: PropertyDefinitionRepository;

    before(async () => {
      ({ catalog, dispose } = await backend.open());
      events = new EventDefinitionRepository(catalog.db, catalog.dialect);
      properties = new PropertyDefinitionRepository(catalog.db, catalog.dialect);
      let clock = T0;
      const recorder = new DefinitionRecorder(catalog.db, events, properties, () => clock);
      await recorder.record(1, [{ event: 'Zebra', properties: { price: 1, '$feature/x': true, distinct_id: 'u' } }]);
      clock += 1000;
      await recorder.record(1, [{ event: '$pageview', properties: { $current_url: 'u', price: 2 } }]);
      clock += 86_400_000;
      await recorder.record(1, [
        { event: 'apple_50%_off', properties: { title: 'x' } },
        { event: 'z_event_10', properties: {} },
        { event: 'z_event_2', properties: {} },
      ]);
      await recorder.record(2, [{ event: 'other', properties: { secret: 1 } }]);
    });
    after(() => dispose());

    async function eventNames(filter: Partial<EventDefinitionFilter>) {
      return (await events.list(1, { ...ALL_EVENTS, ...filter }, PAGE)).definitions.map((definition) => definition.name);
    }

    async function propertyNames(filter: Partial<PropertyDefinitionFilter>) {
      const { definitions } = await properties.list(1, { ...EVENT_PROPERTIES, ...filter }, PAGE);
      return definitions.map((definition) => `${definition.name}${definition.isSeenOnFilteredEvents === null ? '' : `:${definition.isSeenOnFilteredEvents}`}`);
    }

    test('event definitions: default, searched and explicit orders, by code point', async () => {
      assert.deepEqual(await eventNames({}), ['apple_50%_off', 'z_event_10', 'z_event_2', '$pageview', 'Zebra']);
      assert.deepEqual(await eventNames({ ordering: [{ field: 'name', byDay: false, descending: false }] }), [
        '$pageview',
        'Zebra',
        'apple_50%_off',
        'z_event_10',
        'z_event_2',
      ]);
      assert.deepEqual(await eventNames({ ordering: [{ field: 'created_at', byDay: false, descending: true }] }), [
        'apple_50%_off',
        'z_event_10',
        'z_event_2',
        '$pageview',
        'Zebra',
      ]);
      assert.deepEqual(await eventNames({ searchTerms: ['E'] }), ['Zebra', 'z_event_2', '$pageview', 'z_event_10', 'apple_50%_off']);
      assert.deepEqual(await eventNames({ searchTerms: ['50%'] }), ['apple_50%_off']);
      assert.deepEqual(await eventNames({ searchTerms: ['e_'] }), ['apple_50%_off']);
      assert.deepEqual(await eventNames({ eventType: 'event_posthog' }), ['$pageview']);
      assert.deepEqual(await eventNames({ eventType: 'event_custom', excludedNames: ['Zebra'], names: ['Zebra', 'z_event_2'] }), ['z_event_2']);
      assert.equal((await events.list(1, ALL_EVENTS, { limit: 2, offset: 4 })).total, 5);
    });

    test('event definitions: update, find and delete stay inside the project', async () => {
      const [zebra] = (await events.list(1, { ...ALL_EVENTS, names: ['Zebra'] }, PAGE)).definitions;
      assert.ok(zebra);
      await events.update(1, zebra.id, { description: 'd', tags: ['t'], hidden: true, ownerId: null }, '2024-06-20T00:00:00.000Z');
      const found = await events.find(1, zebra.id);
      assert.deepEqual([found?.description, found?.tags, found?.hidden, found?.updatedAt], ['d', ['t'], true, '2024-06-20T00:00:00.000Z']);
      assert.equal(await events.find(2, zebra.id), undefined);
      assert.equal(await events.delete(2, zebra.id), false);
      assert.equal(await events.delete(1, zebra.id), true);
      assert.equal(await events.find(1, zebra.id), undefined);
    });

    test('property definitions: hidden names, event links, numerical and feature flag filters', async () => {
      assert.deepEqual(await propertyNames({}), ['$current_url', '$feature/x', 'price', 'title']);
      assert.deepEqual(await propertyNames({ eventNames: ['$pageview'] }), ['$current_url:true', 'price:true', '$feature/x:false', 'title:false']);
      assert.deepEqual(await propertyNames({ eventNames: ['$pageview'], onlySeenOnEventNames: true }), ['$current_url:true', 'price:true']);
      assert.deepEqual(await propertyNames({ onlySeenOnEventNames: true }), ['$current_url', 'price', 'title']);
      assert.deepEqual(await propertyNames({ onlyNumerical: true }), ['price']);
      assert.deepEqual(await propertyNames({ featureFlags: true }), ['$feature/x']);
      assert.deepEqual(await propertyNames({ featureFlags: false, searchTerms: ['T'] }), ['$current_url', 'title']);
      assert.deepEqual(await propertyNames({ names: ['title', 'nope'], excludedNames: ['price'] }), ['title']);
      assert.deepEqual(await propertyNames({ kind: PropertyDefinitionKind.Person }), []);
    });

    test('property definitions: update sets is_numerical with the type', async () => {
      const [price] = (await properties.list(1, { ...EVENT_PROPERTIES, names: ['price'] }, PAGE)).definitions;
      assert.ok(price);
      await properties.update(1, price.id, { propertyType: 'String', tags: ['a'] }, '2024-06-20T00:00:00.000Z');
      const updated = await properties.find(1, price.id);
      assert.deepEqual([updated?.propertyType, updated?.isNumerical, updated?.tags], ['String', false, ['a']]);
      assert.equal(await properties.find(2, price.id), undefined);
    });
  });
}
