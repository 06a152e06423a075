import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredCaptureLogEntry } from '../../src/capture/capture-log.js';
import { IngestionBatch } from '../../src/capture/ingestion-batch.js';
import type { LoggedEvent } from '../../src/capture/normalize-event.js';
import { PersonCache, type CachedPerson } from '../../src/capture/person-cache.js';
import { PersonRepository } from '../../src/persons/person-repository.js';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';
import { decodeEventRows } from '../support/event-rows.js';
import { batchServices } from '../support/ingestion-batch.js';
import { loggedEntryEvents, loggedEvent } from '../support/logged-events.js';

const T0 = Date.UTC(2024, 5, 15, 10, 20, 0);
const HOUR = 3_600_000;

/** Counts the distinct ids looked up in the catalog. */
class CountingRepository extends PersonRepository {
  lookedUp = 0;

  override findByDistinctIds(teamId: number, distinctIds: readonly string[]) {
    this.lookedUp += distinctIds.length;
    return super.findByDistinctIds(teamId, distinctIds);
  }
}

/**
 * Batches, each a log entry, whose persons depend on what earlier batches committed: changes a
 * person write skips (a new browser, a new last-seen hour), merges of stored persons, aliases,
 * `$unset`, and a person-less event before its id gets a person.
 */
function batches(): LoggedEvent[][] {
  let sequence = 0;
  const event = (name: string, distinctId: string, hours: number, properties: Record<string, unknown> = {}, processPerson = true): LoggedEvent => {
    sequence += 1;
    return loggedEvent(sequence, { event: name, distinctId, time: T0 + hours * HOUR + sequence * 1000, properties, processPerson });
  };
  return [
    [
      event('$pageview', 'user-1', 0, { $set: { plan: 'free', $browser: 'Firefox' } }),
      event('$pageview', 'anon-2', 0, { $set_once: { first: 'landing' } }),
      event('$pageview', 'user-2', 0, { $set: { plan: 'pro' } }),
      event('$pageview', 'ghost', 0, {}, false),
    ],
    [
      // Written by nobody: a filtered property changes and the last-seen hour moves.
      event('$pageview', 'user-1', 3, { $set: { $browser: 'Chrome' } }),
      event('$pageview', 'anon-2', 3),
      event('$pageview', 'ghost', 3, { $set: { plan: 'trial' } }),
    ],
    [
      event('$pageview', 'user-1', 4),
      event('$identify', 'user-2', 5, { $anon_distinct_id: 'anon-2', $set: { email: 'b@tally.dev' } }),
      event('$create_alias', 'user-1', 5, { alias: 'mobile-1' }),
    ],
    [
      event('$pageview', 'anon-2', 6, { $set: { $browser: 'Safari' } }),
      event('$pageview', 'mobile-1', 6, { $unset: ['plan'] }),
      event('$pageview', 'user-1', 7),
      event('$pageview', 'ghost', 7),
    ],
    // A write through one id of a person whose other ids the cache also holds.
    [event('$pageview', 'user-1', 8, { $set: { plan: 'team' } })],
    [event('$pageview', 'mobile-1', 9, { $set: { seats: 3 } })],
  ];
}

for (const backend of CATALOG_BACKENDS) {
  describe(`person cache on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    /** Processes the batches in turn on a fresh catalog: their event rows, and the persons left. */
    async function ingest(catalog: Catalog, newCache: () => PersonCache, persons: PersonRepository) {
      const rows: Record<string, string | number>[][] = [];
      for (const [index, events] of batches().entries()) {
        const entry: StoredCaptureLogEntry = { id: index + 1, teamId: 1, receivedAt: T0, events: loggedEntryEvents(events) };
        const batch = new IngestionBatch(batchServices(catalog, { persons, personCache: newCache() }));
        await batch.process([entry]);
        await catalog.db.transaction().execute((trx) => batch.write(trx));
        batch.rememberCommitted();
        rows.push(decodeEventRows(Buffer.concat(batch.rows.encoded())));
      }
      const stored = await catalog.db.selectFrom('persons').selectAll().orderBy('id').execute();
      const links = await catalog.db.selectFrom('person_distinct_ids').select(['distinct_id', 'person_id']).orderBy('id').execute();
      return { rows, stored, links };
    }

    test('batches that find their persons in the cache make the same rows and the same catalog as batches that read the catalog', async () => {
      const uncached = await backend.open();
      const cached = await backend.open();
      try {
        const reading = new CountingRepository(uncached.catalog.db);
        const expected = await ingest(uncached.catalog, () => new PersonCache(), reading);
        const cache = new PersonCache();
        const caching = new CountingRepository(cached.catalog.db);
        const actual = await ingest(cached.catalog, () => cache, caching);
        assert.deepEqual(actual, expected);

        // The rows hold what the catalog held, not what the skipped writes would have made.
        const user1 = expected.rows.map((rows) => rows.filter((row) => row.distinct_id === 'user-1').map((row) => JSON.parse(String(row.person_properties))));
        assert.deepEqual(user1[1], [{ plan: 'free', $browser: 'Chrome', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' }]);
        const stored = { plan: 'free', $browser: 'Firefox', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' };
        assert.deepEqual(user1[2], [stored, stored]);
        assert.deepEqual(user1[3], [{ $browser: 'Firefox', $creator_event_uuid: '0190a3f2-0000-7000-8000-000000000001' }]);
        assert.ok(caching.lookedUp < reading.lookedUp, `the cache answered some lookups (${caching.lookedUp} against ${reading.lookedUp})`);
      } finally {
        await uncached.dispose();
        await cached.dispose();
      }
    });
  });
}

describe('person cache', () => {
  const person = (id: number): CachedPerson => ({
    id,
    uuid: `0190a3f2-0000-7000-8000-${String(id).padStart(12, '0')}`,
    teamId: 1,
    propertiesJson: '{}',
    isIdentified: false,
    createdAt: '2024-01-01T00:00:00.000000Z',
    lastSeenAt: null,
    version: 0,
  });

  test('keeps teams apart, forgets ids remembered as person-less, and forgets the earliest-remembered ids past its bound', () => {
    const cache = new PersonCache(3);
    cache.remember(1, [
      ['a', person(1)],
      ['b', person(2)],
    ]);
    cache.remember(2, [['a', person(3)]]);
    assert.equal(cache.get(1, 'a')?.id, 1);
    assert.equal(cache.get(2, 'a')?.id, 3);
    assert.equal(cache.get(2, 'b'), undefined);

    cache.remember(1, [
      ['a', person(1)],
      ['b', null],
    ]);
    assert.equal(cache.get(1, 'b'), undefined);

    cache.remember(2, [
      ['c', person(4)],
      ['d', person(5)],
    ]);
    assert.equal(cache.get(1, 'a'), undefined, 'the oldest id is forgotten first');
    assert.deepEqual(
      ['a', 'c', 'd'].map((id) => cache.get(2, id)?.id),
      [3, 4, 5],
    );

    cache.clear();
    assert.equal(cache.get(2, 'c'), undefined);
  });

  test('forgets the earliest-remembered ids while the properties text of the held persons is past its bound, counting each person once', () => {
    const withText = (id: number, chars: number, version = 0): CachedPerson => ({ ...person(id), propertiesJson: `{"p":"${'x'.repeat(chars - 8)}"}`, version });
    const cache = new PersonCache(100, 100);
    cache.remember(1, [
      ['a', withText(1, 40)],
      ['a2', withText(1, 40)],
      ['b', withText(2, 40)],
    ]);
    assert.deepEqual(
      ['a', 'a2', 'b'].map((id) => cache.get(1, id)?.id),
      [1, 1, 2],
      'a person named by two ids counts its text once: 80 characters held',
    );

    cache.remember(1, [['c', withText(3, 30)]]);
    assert.deepEqual(
      ['a', 'a2', 'b', 'c'].map((id) => cache.get(1, id)?.id),
      [undefined, undefined, 2, 3],
      'at 110 characters the earliest ids go until their person goes with its text',
    );

    cache.remember(1, [['b', withText(2, 60, 1)]]);
    assert.deepEqual(
      ['b', 'c'].map((id) => cache.get(1, id)?.version),
      [1, 0],
      'a person remembered with longer text counts the new length: 90 characters',
    );

    cache.remember(1, [['d', withText(4, 20)]], [2]);
    assert.deepEqual(
      ['b', 'c', 'd'].map((id) => cache.get(1, id)?.id),
      [undefined, 3, 4],
      'a person merged away no longer counts: 50 characters, nothing evicted',
    );

    cache.remember(1, [['huge', withText(5, 101)]]);
    assert.deepEqual(
      ['c', 'd', 'huge'].map((id) => cache.get(1, id)?.id),
      [undefined, undefined, undefined],
      'a person larger than the bound is not held, nor anything remembered before it',
    );
    cache.remember(1, [['e', withText(6, 100)]]);
    assert.equal(cache.get(1, 'e')?.id, 6, 'and the cache holds up to its bound again');
  });

  test('every id of a person finds the version last remembered through any of them, until the person is merged away or evicted', () => {
    const cache = new PersonCache(3);
    cache.remember(1, [
      ['anon', person(7)],
      ['user', person(7)],
    ]);
    cache.remember(1, [['user', { ...person(7), propertiesJson: '{"plan":"pro"}', version: 1 }]]);
    assert.deepEqual(
      ['anon', 'user'].map((id) => cache.get(1, id)?.propertiesJson),
      ['{"plan":"pro"}', '{"plan":"pro"}'],
    );

    cache.remember(1, [['other', person(8)]], [7]);
    assert.equal(cache.get(1, 'anon'), undefined, 'a person merged away is found by none of its ids');
    cache.remember(1, [
      ['anon', person(8)],
      ['user', person(8)],
    ]);
    assert.deepEqual(
      ['anon', 'user', 'other'].map((id) => cache.get(1, id)?.id),
      [8, 8, 8],
    );

    cache.remember(1, [['late', person(9)]]);
    assert.equal(cache.get(1, 'anon'), undefined, 'the earliest-remembered id is evicted');
    assert.deepEqual(
      ['user', 'other', 'late'].map((id) => cache.get(1, id)?.id),
      [8, 8, 9],
    );
  });
});
