import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { Catalog } from '../../src/storage/catalog/catalog.js';
import { CATALOG_BACKENDS } from '../support/catalogs.js';

for (const backend of CATALOG_BACKENDS) {
  describe(`deferred-sync transactions on ${backend.name}`, { skip: backend.skip ?? false }, () => {
    let catalog: Catalog;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ catalog, dispose } = await backend.open());
    });
    after(() => dispose());

    const organizationNames = async () => (await catalog.db.selectFrom('organizations').select('name').orderBy('name').execute()).map((row) => row.name);
    const organization = (name: string) => ({ id: crypto.randomUUID(), name, created_at: new Date().toISOString() });

    test('commit what they write, roll back on failure, and leave every other commit synchronous', async () => {
      const safetyLevel = async (db: Parameters<Catalog['deferredSyncTransaction']>[0]) =>
        Number((await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db)).rows[0]!.synchronous);

      const tempStore = async (db: Parameters<Catalog['deferredSyncTransaction']>[0]) =>
        Number((await sql<{ temp_store: number }>`PRAGMA temp_store`.execute(db)).rows[0]!.temp_store);

      const inside = await catalog.deferredSyncTransaction(catalog.db, async (trx) => {
        await trx.insertInto('organizations').values(organization('kept')).execute();
        return backend.name === 'sqlite' ? { synchronous: await safetyLevel(trx), tempStore: await tempStore(trx) } : null;
      });
      await assert.rejects(
        catalog.deferredSyncTransaction(catalog.db, async (trx) => {
          await trx.insertInto('organizations').values(organization('rolled back')).execute();
          throw new Error('injected failure');
        }),
        /injected failure/,
      );
      await catalog.syncCommits();
      await catalog.syncCommits();

      assert.deepEqual(await organizationNames(), ['kept']);
      if (backend.name === 'sqlite') {
        assert.deepEqual(inside, { synchronous: 1, tempStore: 2 }, 'NORMAL inside (the commit does not wait on the disk), temporary files in memory');
        assert.equal(await safetyLevel(catalog.db), 2, 'FULL again after both, the failed one included');
        assert.equal(await tempStore(catalog.db), 0, 'temporary files back on the default');
      }
    });
  });
}
