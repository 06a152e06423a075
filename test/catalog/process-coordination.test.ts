import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  CoordinatedWork,
  CoordinationChannel,
  LOCK_CLASS,
  LockLost,
  PostgresCoordination,
  SoleProcess,
} from '../../src/storage/catalog/process-coordination.js';
import { createPostgresDatabase, POSTGRES_SKIP_REASON } from '../support/catalogs.js';

/** Resolves once `check` holds, polling; fails after `withinMs`. */
async function eventually(check: () => boolean, withinMs: number, what: string): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > withinMs) assert.fail(`${what} within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

test('a sole process leads every kind of work and runs jobs in turn', async () => {
  const sole = new SoleProcess();
  const changes: boolean[] = [];
  await sole.campaign(CoordinatedWork.Ingestion, (leading) => changes.push(leading));
  assert.deepEqual(changes, [true]);
  const order: string[] = [];
  await Promise.all([
    sole.ifNoneElse(CoordinatedWork.Jobs, async () => {
      order.push('first starts');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('first ends');
    }),
    sole.ifNoneElse(CoordinatedWork.Jobs, async () => order.push('second')),
  ]);
  assert.deepEqual(order, ['first starts', 'first ends', 'second']);
});

describe('processes coordinated through PostgreSQL', { skip: POSTGRES_SKIP_REASON ?? false }, () => {
  let database: { url: string; drop(): Promise<void> };
  const opened: PostgresCoordination[] = [];
  const coordination = () => {
    const made = new PostgresCoordination(database.url);
    opened.push(made);
    return made;
  };

  before(async () => {
    database = await createPostgresDatabase();
  });

  after(async () => {
    for (const each of opened) await each.close();
    await database.drop();
  });

  test('one process leads; when it goes, another takes the lead within about a second', async () => {
    const first = coordination();
    const second = coordination();
    let firstLeads = false;
    let secondLeads = false;
    await first.campaign(CoordinatedWork.Ingestion, (leading) => (firstLeads = leading));
    await second.campaign(CoordinatedWork.Ingestion, (leading) => (secondLeads = leading));
    assert.deepEqual([firstLeads, secondLeads], [true, false]);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.equal(secondLeads, false, 'the lead is not taken while its holder lives');
    await first.close();
    const took = await eventually(() => secondLeads, 3000, 'the second process leads');
    assert.ok(took <= 1500, `taken over after ${took} ms`);
  });

  test('jobs run by one process at a time: another finds them under way and skips', async () => {
    const first = coordination();
    const second = coordination();
    let release!: () => void;
    const running = first.ifNoneElse(CoordinatedWork.Jobs, () => new Promise<string>((resolve) => (release = () => resolve('ran'))));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await second.ifNoneElse(CoordinatedWork.Jobs, async () => 'ran twice'), null);
    release();
    assert.equal(await running, 'ran');
    assert.equal(await second.ifNoneElse(CoordinatedWork.Jobs, async () => 'ran after'), 'ran after');
  });

  test('start-up runs one process at a time', async () => {
    const first = coordination();
    const second = coordination();
    const order: string[] = [];
    const step = (name: string) => async () => {
      order.push(`${name} starts`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      order.push(`${name} ends`);
    };
    await Promise.all([first.exclusively(CoordinatedWork.Startup, step('a')), second.exclusively(CoordinatedWork.Startup, step('b'))]);
    assert.equal(order.length, 4);
    assert.match(order.join(','), /^(a starts,a ends,b starts,b ends|b starts,b ends,a starts,a ends)$/);
  });

  for (const call of ['exclusively', 'ifNoneElse'] as const) {
    test(`${call}: when the lock's connection is ended during the work, the work finishes, the call fails saying so, and the lock is free`, async () => {
      const holder = coordination();
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        const steps: string[] = [];
        const outcome = holder[call](CoordinatedWork.Jobs, async () => {
          const ended = await admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_locks
             WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 AND objsubid = 2 AND granted`,
            [LOCK_CLASS, CoordinatedWork.Jobs],
          );
          assert.equal(ended.rowCount, 1);
          // The ended session's error reaches the client while the work goes on.
          await new Promise((resolve) => setTimeout(resolve, 300));
          steps.push('work done');
          return 'done';
        });
        await assert.rejects(outcome, (error: unknown) => error instanceof LockLost && /Jobs work broke while the work ran/.test(error.message));
        assert.deepEqual(steps, ['work done']);
        assert.equal(await coordination().ifNoneElse(CoordinatedWork.Jobs, async () => 'ran'), 'ran');
      } finally {
        await admin.end();
      }
    });
  }

  test('a signal reaches the other processes, payloads sent together arriving as one', async () => {
    const sender = coordination();
    const listener = coordination();
    const heard: string[] = [];
    listener.listen(CoordinationChannel.Captured, (payload) => heard.push(payload));
    // LISTEN is issued as the session connects: give it the time to.
    await new Promise((resolve) => setTimeout(resolve, 300));
    sender.signal(CoordinationChannel.Captured, '25');
    sender.signal(CoordinationChannel.Captured, '100');
    await eventually(() => heard.length > 0, 3000, 'the signal is heard');
    assert.deepEqual(heard, ['25,100']);
  });
});
