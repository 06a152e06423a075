import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { OutboxRelay, type OutboxEntry } from '../../src/storage/warehouse/outbox.js';
import { OutboxRepository } from '../../src/storage/warehouse/outbox-repository.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';
import { tempDataDir } from '../support/tally.js';

const PERSON_A = '0190a3f2-0000-7000-8000-00000000000a';
const PERSON_B = '0190a3f2-0000-7000-8000-00000000000b';

function link(distinctId: string, personId: string, deleted = 0): OutboxEntry {
  return { target: 'person_distinct_ids', row: { team_id: 1, distinct_id: distinctId, person_id: personId, is_deleted: deleted } };
}

for (const backend of CATALOG_BACKENDS) {
  describe(`the replica outbox on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    const directory = tempDataDir('tally-outbox-');
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    let warehouse: ChdbWarehouse;
    let relay: OutboxRelay;
    let outbox: OutboxRepository;

    before(async () => {
      ({ catalog, dispose } = await backend.open());
      warehouse = new ChdbWarehouse(directory);
      await migrateWarehouse(warehouse);
      outbox = new OutboxRepository(catalog.db, catalog.dialect);
      relay = new OutboxRelay(outbox, warehouse, () => catalog.syncCommits());
    });
    after(async () => {
      await warehouse.close();
      await dispose();
      fs.rmSync(directory, { recursive: true, force: true });
    });

    /** Each distinct id's current person, as the replica resolves versions. */
    async function currentLinks(): Promise<Map<string, string>> {
      const rows = await warehouse.query<{ distinct_id: string; person_id: string }>(
        `SELECT distinct_id, toString(argMax(person_id, version)) AS person_id FROM person_distinct_ids
         GROUP BY distinct_id HAVING argMax(is_deleted, version) = 0`,
      );
      return new Map(rows.map((row) => [row.distinct_id, row.person_id]));
    }

    test('a write of thousands of replica rows takes a few outbox rows, and the latest write of a key wins', async () => {
      // 2,500 ids linked to A; then, in the same write, id-7 and id-1999 move to B and id-3 is deleted:
      // the later writes sit in the same outbox row as the earlier ones and in later rows.
      const entries = Array.from({ length: 2500 }, (_, index) => link(`id-${index}`, PERSON_A));
      entries.push(link('id-7', PERSON_B), link('id-1999', PERSON_B), link('id-3', PERSON_A, 1));
      entries.splice(10, 0, link('id-1999', PERSON_A, 1));
      await catalog.db.transaction().execute((trx) => outbox.withTransaction(trx).append(entries));
      await outbox.append([
        {
          target: 'persons',
          row: { id: PERSON_B, team_id: 1, person_id: 2, properties: '{}', is_identified: 1, created_at: Date.UTC(2024, 0, 1) * 1000, is_deleted: 0 },
        },
      ]);

      const stored = await catalog.db.selectFrom('warehouse_outbox').select(['target']).orderBy('id').execute();
      assert.deepEqual(
        stored.map((row) => row.target),
        ['person_distinct_ids', 'person_distinct_ids', 'person_distinct_ids', 'persons'],
      );

      await relay.flush();
      const links = await currentLinks();
      assert.equal(links.size, 2499);
      assert.equal(links.get('id-0'), PERSON_A);
      assert.equal(links.get('id-2499'), PERSON_A);
      assert.equal(links.get('id-7'), PERSON_B);
      assert.equal(links.get('id-1999'), PERSON_B);
      assert.equal(links.has('id-3'), false);
      const [person] = await warehouse.query<{ is_identified: number }>(`SELECT is_identified FROM persons WHERE person_id = 2`);
      assert.equal(Number(person!.is_identified), 1);
    });

    test('a later write outranks every row of an earlier packed write', async () => {
      await outbox.append([link('id-2499', PERSON_B)]);
      await outbox.append([link('id-0', PERSON_B)]);
      await relay.flush();
      const links = await currentLinks();
      assert.equal(links.get('id-2499'), PERSON_B);
      assert.equal(links.get('id-0'), PERSON_B);
      assert.equal(links.get('id-1'), PERSON_A);
      assert.equal(links.size, 2499);
    });
    test('rows of every target reach their replica column for column', async () => {
      const createdAt = Date.UTC(2024, 1, 3, 4, 5, 6) * 1000 + 789_012;
      await outbox.append([
        {
          target: 'persons',
          row: { id: PERSON_A, team_id: 3, person_id: 41, properties: '{"name":"Zoë \\"Z\\"","n":1}', is_identified: 0, created_at: createdAt, is_deleted: 0 },
        },
        { target: 'groups', row: { team_id: 3, group_type_index: 2, group_key: 'acme ✓', group_properties: '{"seats":5}', created_at: createdAt } },
        { target: 'static_cohort_members', row: { team_id: 3, cohort_id: 9, person_id: PERSON_B, is_deleted: 0 } },
      ]);
      await relay.flush();

      assert.deepEqual(
        await warehouse.query(
          `SELECT toString(id) AS id, toString(person_id) AS person_id, properties, is_identified,
                  toString(created_at) AS created_at, is_deleted FROM persons FINAL WHERE team_id = 3`,
        ),
        [
          {
            id: PERSON_A,
            person_id: '41',
            properties: '{"name":"Zoë \\"Z\\"","n":1}',
            is_identified: 0,
            created_at: '2024-02-03 04:05:06.789012',
            is_deleted: 0,
          },
        ],
      );
      assert.deepEqual(
        await warehouse.query(
          `SELECT group_type_index, group_key, group_properties, toString(created_at) AS created_at FROM groups FINAL WHERE team_id = 3 ORDER BY group_key`,
        ),
        [{ group_type_index: 2, group_key: 'acme ✓', group_properties: '{"seats":5}', created_at: '2024-02-03 04:05:06.789012' }],
      );
      assert.deepEqual(
        await warehouse.query(
          `SELECT toString(cohort_id) AS cohort_id, toString(person_id) AS person_id, is_deleted FROM static_cohort_members WHERE team_id = 3`,
        ),
        [{ cohort_id: '9', person_id: PERSON_B, is_deleted: 0 }],
      );
    });

    test("a read's catch-up applies what a restart found in the outbox, then each write its writer flushed, and reads the outbox only then", async () => {
      // A relay as a restarted process makes one: rows a crash left are applied by the first catch-up.
      const restarted = new OutboxRelay(outbox, warehouse, () => catalog.syncCommits());
      await outbox.append([link('left-by-a-crash', PERSON_B)]);
      await restarted.catchUp();
      assert.equal((await currentLinks()).get('left-by-a-crash'), PERSON_B);

      let outboxReads = 0;
      const counting = Object.assign(Object.create(outbox) as OutboxRepository, {
        after: (id: number, limit: number) => {
          outboxReads += 1;
          return outbox.after(id, limit);
        },
      });
      const relayed = new OutboxRelay(counting, warehouse, () => catalog.syncCommits());
      await relayed.catchUp();
      assert.equal(outboxReads, 1);
      await relayed.catchUp();
      await relayed.catchUp();
      assert.equal(outboxReads, 1, 'nothing was flushed since the outbox was found empty');
      await outbox.append([link('written-then-flushed', PERSON_B)]);
      await relayed.flush();
      assert.equal(outboxReads, 2);
      assert.equal((await currentLinks()).get('written-then-flushed'), PERSON_B);
      await relayed.catchUp();
      assert.equal(outboxReads, 2);
    });
  });
}
