import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { StoredCaptureLogEntry } from '../../src/capture/capture-log.js';
import { IngestionBatch } from '../../src/capture/ingestion-batch.js';
import type { LoggedEvent } from '../../src/capture/normalize-event.js';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';
import { decodeEventRows } from '../support/event-rows.js';
import { batchServices } from '../support/ingestion-batch.js';
import { loggedEntryEvents as logged, loggedEvent } from '../support/logged-events.js';
import { isoWithMicros } from '../../src/util/iso-time.js';

const T0 = Date.UTC(2024, 5, 15, 10, 20, 0);
let sequence = 0;

function event(name: string, distinctId: string, properties: Record<string, unknown> = {}): LoggedEvent {
  sequence += 1;
  return loggedEvent(sequence, { event: name, distinctId, time: T0 + sequence * 60_000, properties });
}

/** Two requests covering creation, updates, merges in both directions, aliases and groups. */
function entries(): StoredCaptureLogEntry[] {
  sequence = 0;
  return [
    {
      id: 1,
      teamId: 1,
      receivedAt: T0,
      events: logged([
        event('$pageview', 'anon-1', { $set_once: { first: 'a' } }),
        event('$pageview', 'user-1', { $set: { plan: 'free' } }),
        event('$identify', 'user-1', { $anon_distinct_id: 'anon-1', $set: { email: 'ada@tally.dev' } }),
        event('signed up', 'anon-2', { $groups: { company: 'acme' } }),
      ]),
    },
    {
      id: 2,
      teamId: 1,
      receivedAt: T0 + 1000,
      events: logged([
        event('$create_alias', 'anon-2', { alias: 'user-2' }),
        event('$set', 'user-2', { $set: { plan: 'pro' }, $unset: ['missing'] }),
        event('$identify', 'user-3', { $anon_distinct_id: 'anon-2' }),
        event('$pageview', 'user-1', { $set: { plan: 'team' }, $set_once: { first: 'ignored' } }),
        event('$groupidentify', 'user-1', { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 5 } }),
      ]),
    },
  ];
}

for (const backend of CATALOG_BACKENDS) {
  describe(`ingestion batches on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ catalog, dispose } = await backend.open());
    });
    after(() => dispose());

    async function apply(logged: StoredCaptureLogEntry[]) {
      const batch = new IngestionBatch(batchServices(catalog));
      await batch.process(logged);
      await catalog.db.transaction().execute((trx) => batch.write(trx));
      return batch;
    }

    async function catalogState() {
      const persons = await catalog.db
        .selectFrom('persons')
        .select(['id', 'uuid', 'properties', 'is_identified', 'created_at', 'last_seen_at'])
        .orderBy('id')
        .execute();
      const links = await catalog.db.selectFrom('person_distinct_ids').select(['distinct_id', 'person_id']).orderBy('id').execute();
      const groups = await catalog.db.selectFrom('groups').select(['group_key', 'properties']).execute();
      return {
        persons: persons.map((person) => ({ ...person, properties: JSON.parse(person.properties), is_identified: Number(person.is_identified) })),
        links: links.map((link) => ({ distinct_id: link.distinct_id, person_id: Number(link.person_id) })),
        groups,
      };
    }

    test('a batch processed again after its changes were committed leaves the catalog as it was', async () => {
      const first = await apply(entries());
      const state = await catalogState();
      assert.deepEqual(
        state.persons.map((person) => [person.properties, person.is_identified]),
        [
          // anon-1's person merged into user-1's, whose own values win; then later updates.
          [{ first: 'a', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000002', plan: 'team', email: 'ada@tally.dev' }, 1],
          [{ $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000004', plan: 'pro' }, 1],
        ],
      );
      const [survivor, aliased] = state.persons;
      assert.deepEqual(state.links, [
        { distinct_id: 'user-1', person_id: survivor!.id },
        { distinct_id: 'anon-1', person_id: survivor!.id },
        { distinct_id: 'anon-2', person_id: aliased!.id },
        { distinct_id: 'user-2', person_id: aliased!.id },
        { distinct_id: 'user-3', person_id: aliased!.id },
      ]);
      assert.deepEqual(state.groups, [{ group_key: 'acme', properties: '{"seats":5}' }]);

      const again = await apply(entries());
      assert.deepEqual(await catalogState(), state);
      const personIds = (batch: IngestionBatch) => decodeEventRows(Buffer.concat(batch.rows.encoded())).map((row) => row.person_id);
      const firstIds = personIds(first);
      assert.deepEqual(
        personIds(again),
        firstIds.map((personId, index) => (index < 2 ? firstIds[2] : personId)),
        'replayed events name the persons the first pass left',
      );
    });

    test('a log entry holding lone surrogates (logged before capture replaced them) is processed with U+FFFD in their place', async () => {
      sequence = 200;
      const lonely = [{ ...event('old', 'old-\ud800', { $set: { 'k\udc00': 'v\ud83d' } }) }];
      await apply([{ id: 20, teamId: 1, receivedAt: T0, events: logged(lonely) }]);
      const links = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').where('distinct_id', 'like', 'old-%').execute();
      assert.deepEqual(
        links.map((link) => link.distinct_id),
        ['old-\ufffd'],
      );
      const persons = (await catalogState()).persons.filter((person) => person.properties['k\ufffd'] !== undefined);
      assert.deepEqual(
        persons.map((person) => person.properties['k\ufffd']),
        ['v\ufffd'],
      );
    });

    test('a merge of two stored persons keeps the earlier creation and drops the merged person with its links', async () => {
      const entry = (id: number, events: LoggedEvent[]): StoredCaptureLogEntry[] => [{ id, teamId: 1, receivedAt: T0, events: logged(events) }];
      sequence = 100;
      // Stored in earlier batches: user-9 first, then anon-9 with an earlier event time.
      await apply(entry(10, [{ ...event('$pageview', 'user-9', { $set: { plan: 'pro' } }), time: T0 + 7_200_000 }]));
      await apply(entry(11, [{ ...event('$pageview', 'anon-9', { $set: { plan: 'free', seen: 1 } }), time: T0 + 3_600_000 }]));
      const anonymous = (await catalogState()).persons.filter((person) => person.properties.seen === 1);
      assert.equal(anonymous.length, 1);

      await apply(entry(12, [event('$identify', 'user-9', { $anon_distinct_id: 'anon-9' })]));
      const state = await catalogState();
      const [survivor] = state.persons.filter((person) => person.properties.seen === 1);
      assert.equal(survivor!.created_at, isoWithMicros(T0 + 3_600_000));
      assert.equal(survivor!.properties.plan, 'pro');
      assert.equal(survivor!.is_identified, 1);
      assert.equal(
        state.persons.some((person) => person.id === anonymous[0]!.id),
        false,
      );
      assert.deepEqual(
        state.links.filter((link) => link.distinct_id.endsWith('-9')),
        [
          { distinct_id: 'user-9', person_id: survivor!.id },
          { distinct_id: 'anon-9', person_id: survivor!.id },
        ],
      );
    });
  });
}
