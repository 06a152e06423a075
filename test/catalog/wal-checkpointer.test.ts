import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { WalCheckpointer } from '../../src/storage/catalog/wal-checkpointer.js';
import { tempDataDir } from '../support/tally.js';

test('the checkpoint thread copies the WAL into the database file once it passes the threshold', async (t) => {
  const directory = tempDataDir('tally-checkpoint-');
  t.after(() => fs.rmSync(directory, { recursive: true, force: true }));
  const file = path.join(directory, 'catalog.sqlite');
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('wal_autocheckpoint = 0');
  database.exec('CREATE TABLE rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL)');
  const checkpointer = new WalCheckpointer(file, 256 * 1024);
  try {
    assert.equal(await checkpointer.poke(), null, 'below the threshold nothing runs');

    const insert = database.prepare('INSERT INTO rows (text) VALUES (?)');
    database.transaction(() => {
      for (let index = 0; index < 2000; index++) insert.run(`row ${index} ${'x'.repeat(200)}`);
    })();
    const result = await checkpointer.poke();
    assert.ok(result && 'walFrames' in result, `a checkpoint ran: ${JSON.stringify(result)}`);
    assert.ok(result.walFrames > 64);
    assert.equal(result.checkpointedFrames, result.walFrames, 'every frame was copied');

    // The database file alone, without its WAL, now holds the rows.
    const copy = path.join(directory, 'copy.sqlite');
    fs.copyFileSync(file, copy);
    const alone = new Database(copy, { readonly: true });
    assert.equal((alone.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n, 2000);
    alone.close();
  } finally {
    await checkpointer.close();
    database.close();
  }
  assert.equal(await checkpointer.poke(), null, 'a closed checkpointer starts nothing');
});
