import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';

for (const backend of CATALOG_BACKENDS) {
  describe(`U+0000 in catalog text on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ catalog, dispose } = await backend.open());
    });
    after(() => dispose());

    // PostgreSQL text cannot hold U+0000: it gets U+FFFD in its place; SQLite keeps it.
    const stored = (text: string) => (backend.name === 'postgres' ? text.replaceAll('\u0000', '\ufffd') : text);

    test('single values and multi-row inserts are written, and found again by the same text', async () => {
      await catalog.db
        .insertInto('persons')
        .values([
          { uuid: '0190a3f2-0000-7000-8000-000000000001', team_id: 1, properties: '{}', is_identified: 0, created_at: '2026-01-01T00:00:00Z', version: 0 },
          { uuid: '0190a3f2-0000-7000-8000-000000000002', team_id: 1, properties: '{}', is_identified: 0, created_at: '2026-01-01T00:00:00Z', version: 0 },
        ])
        .execute();
      const persons = await catalog.db.selectFrom('persons').select('id').orderBy('id').execute();
      await catalog.db
        .insertInto('person_distinct_ids')
        .values([
          { team_id: 1, distinct_id: 'a\u0000b', person_id: persons[0]!.id },
          { team_id: 1, distinct_id: 'plain', person_id: persons[1]!.id },
        ])
        .execute();
      const rows = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').orderBy('id').execute();
      assert.deepEqual(
        rows.map((row) => row.distinct_id),
        [stored('a\u0000b'), 'plain'],
      );
      const found = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').where('distinct_id', 'in', ['a\u0000b', 'x']).execute();
      assert.equal(found.length, 1);
      const one = await catalog.db.selectFrom('person_distinct_ids').select('distinct_id').where('distinct_id', '=', 'a\u0000b').execute();
      assert.equal(one.length, 1);
      await catalog.db.updateTable('persons').set({ properties: '{"k":"\u0000"}' }).where('id', '=', persons[0]!.id).execute();
      const updated = await catalog.db.selectFrom('persons').select('properties').where('id', '=', persons[0]!.id).executeTakeFirstOrThrow();
      assert.equal(updated.properties, stored('{"k":"\u0000"}'));
    });
  });
}
