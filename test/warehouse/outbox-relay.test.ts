import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { ChdbWarehouse } from '../../src/storage/warehouse/chdb-warehouse.js';
import { migrateWarehouse } from '../../src/storage/warehouse/migrations.js';
import { appendToOutbox, OutboxRelay, type OutboxEntry } from '../../src/storage/warehouse/outbox.js';
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

    before(async () => {
      ({ catalog, dispose } = await backend.open());
      warehouse = new ChdbWarehouse(directory);
      await migrateWarehouse(warehouse);
      relay = new OutboxRelay(catalog.db, warehouse, () => catalog.syncCommits());
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
      await catalog.db.transaction().execute((trx) => appendToOutbox(trx, entries));
      await appendToOutbox(catalog.db, [{ target: 'persons', row: { id: PERSON_B, team_id: 1, person_id: 2, properties: '{}', is_identified: 1, created_at: '2024-01-01 00:00:00', is_deleted: 0 } }]);

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

    test('a later write outranks every row of an earlier packed write, and a row of one line from before packing', async () => {
      // A row as the outbox stored them before packing: one JSON object.
      await catalog.db
        .insertInto('warehouse_outbox')
        .values({ target: 'person_distinct_ids', row: JSON.stringify(link('id-2499', PERSON_B).row) })
        .execute();
      await appendToOutbox(catalog.db, [link('id-0', PERSON_B)]);
      await relay.flush();
      const links = await currentLinks();
      assert.equal(links.get('id-2499'), PERSON_B);
      assert.equal(links.get('id-0'), PERSON_B);
      assert.equal(links.get('id-1'), PERSON_A);
      assert.equal(links.size, 2499);
    });
  });
}
