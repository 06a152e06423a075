import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sendBatch } from '../support/capture.js';
import { PERSONS, personOf, startWithKeys, validationError } from '../support/persons.js';
import { readStoredData } from '../support/stored-data.js';
import type { TallyServer } from '../support/tally.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

async function captureHistory(server: TallyServer, prefix: string) {
  await sendBatch(server, [
    { event: 'old', distinct_id: `${prefix}-anon`, timestamp: '2024-01-01T00:00:00Z' },
    { event: '$identify', distinct_id: prefix, timestamp: '2024-01-02T00:00:00Z', properties: { $anon_distinct_id: `${prefix}-anon` } },
    { event: 'old', distinct_id: prefix, timestamp: '2024-01-03T00:00:00Z' },
    { event: 'old', distinct_id: `${prefix}-bystander`, timestamp: '2024-01-03T00:00:00Z' },
    { event: 'old', distinct_id: `${prefix}-kept`, timestamp: '2024-01-03T00:00:00Z' },
  ]);
}

function eventsOf(events: { distinct_id: string }[], distinctIds: string[]) {
  return events.filter((event) => distinctIds.includes(event.distinct_id)).length;
}

/** DELETE with delete_events queues a task; `tally jobs run` and the cron schedule run it. */
describe('persons API: event deletion tasks', () => {
  let server: TallyServer;
  let deletedUuid: string;

  before(async () => {
    ({ server } = await startWithKeys());
    await captureHistory(server, 'del');
  });
  after(() => server.dispose());

  test('DELETE with delete_events=true queues one pending task; false or absent queue none', async () => {
    const person = await personOf(server, 'del');
    deletedUuid = person.uuid;
    assert.equal((await server.delete(`${PERSONS}/${person.id}/?delete_events=true`)).status, 204);
    const kept = await personOf(server, 'del-kept');
    assert.equal((await server.delete(`${PERSONS}/${kept.id}/?delete_events=false`)).status, 204);
    const status = await server.get(`${PERSONS}/deletion_status/`);
    assert.equal(status.status, 200);
    assert.equal(status.body.count, 1);
    assert.equal(status.body.next, null);
    assert.equal(status.body.previous, null);
    assert.deepEqual(Object.keys(status.body.results[0]), ['person_uuid', 'created_at', 'status', 'delete_verified_at']);
    assert.equal(status.body.results[0].person_uuid, person.uuid);
    assert.equal(status.body.results[0].status, 'pending');
    assert.equal(status.body.results[0].delete_verified_at, null);
    assert.match(status.body.results[0].created_at, ISO);
  });

  test('deletion_status filters by status and person_uuid, and rejects bad values', async () => {
    assert.equal((await server.get(`${PERSONS}/deletion_status/?status=pending`)).body.count, 1);
    assert.equal((await server.get(`${PERSONS}/deletion_status/?status=completed`)).body.count, 0);
    assert.equal((await server.get(`${PERSONS}/deletion_status/?status=all`)).body.count, 1);
    assert.equal((await server.get(`${PERSONS}/deletion_status/?person_uuid=${deletedUuid.toUpperCase()}`)).body.count, 1);
    assert.equal((await server.get(`${PERSONS}/deletion_status/?person_uuid=00000000-0000-4000-8000-000000000000`)).body.count, 0);
    const status = await server.get(`${PERSONS}/deletion_status/?status=done`);
    assert.equal(status.status, 400);
    assert.deepEqual(status.body, validationError('"done" is not a valid choice.', 'status', 'invalid_choice'));
    const uuid = await server.get(`${PERSONS}/deletion_status/?person_uuid=del`);
    assert.deepEqual(uuid.body, validationError('Must be a valid UUID.', 'person_uuid', 'invalid'));
  });

  test('the events stay until the task runs, and a new event of a released id makes a new person', async () => {
    await sendBatch(server, [{ event: 'after', distinct_id: 'del' }]);
    const reborn = await personOf(server, 'del');
    assert.notEqual(reborn.uuid, undefined);
    await server.stop();
    const data = await readStoredData(server);
    assert.equal(eventsOf(data.events, ['del', 'del-anon']), 4);
  });

  test("tasks survive a restart; `tally jobs run` deletes the events up to the task's creation and verifies", async () => {
    await server.start();
    assert.equal((await server.get(`${PERSONS}/deletion_status/?status=pending`)).body.count, 1);
    await server.stop();

    const run = server.cli(['jobs', 'run']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /event deletion: 1 tasks/);
    const data = await readStoredData(server);
    assert.deepEqual(
      data.events.filter((event) => event.distinct_id === 'del' || event.distinct_id === 'del-anon').map((event) => event.event),
      ['after'],
    );
    assert.equal(eventsOf(data.events, ['del-bystander']), 1);
    assert.equal(eventsOf(data.events, ['del-kept']), 1, 'deleting without delete_events keeps the events');

    const again = server.cli(['jobs', 'run']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /event deletion: 0 tasks/);

    await server.start();
    const status = await server.get(`${PERSONS}/deletion_status/`);
    assert.equal(status.body.results[0].status, 'completed');
    assert.match(status.body.results[0].delete_verified_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal((await server.get(`${PERSONS}/deletion_status/?status=completed`)).body.count, 1);
    assert.equal((await server.get(`${PERSONS}/deletion_status/?status=pending`)).body.count, 0);
  });
});

describe('persons API: the deletion schedule', () => {
  let server: TallyServer;

  before(async () => {
    ({ server } = await startWithKeys({}, { TALLY_DELETION_SCHEDULE: '*/2 * * * * *' }));
    await captureHistory(server, 'sched');
  });
  after(() => server.dispose());

  test('a near-future schedule runs queued tasks without anyone asking', async () => {
    const person = await personOf(server, 'sched');
    assert.equal((await server.delete(`${PERSONS}/${person.id}/?delete_events=1`)).status, 204);
    let status: any;
    for (let attempt = 0; attempt < 60; attempt++) {
      status = (await server.get(`${PERSONS}/deletion_status/`)).body.results[0];
      if (status.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(status.status, 'completed');
    assert.equal(status.person_uuid, person.uuid);
    await server.stop();
    const data = await readStoredData(server);
    assert.equal(eventsOf(data.events, ['sched', 'sched-anon']), 0);
    assert.equal(eventsOf(data.events, ['sched-bystander', 'sched-kept']), 2);
  });
});
