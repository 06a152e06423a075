import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { readStoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

interface Batch {
  uuids: string[];
  body: string;
}

function makeBatch(token: string, sender: number, index: number): Batch {
  const uuids: string[] = [];
  const batch = Array.from({ length: 50 }, (_, position) => {
    const uuid = randomUUID();
    uuids.push(uuid);
    const user = `crash-user-${sender}-${(index * 50 + position) % 40}`;
    return position % 10 === 0
      ? { event: '$identify', distinct_id: user, uuid, properties: { $anon_distinct_id: `anon-${user}`, $set: { n: index } } }
      : { event: 'tick', distinct_id: user, uuid, properties: { sender, index, position } };
  });
  return { uuids, body: JSON.stringify({ api_key: token, batch }) };
}

describe('capture: durability across kill -9', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('every acknowledged event survives exactly once; retries add no duplicates', async () => {
    await server.start();
    const acknowledged: Batch[] = [];
    const unacknowledged: Batch[] = [];
    let stop = false;
    const sender = async (id: number) => {
      for (let index = 0; !stop && index < 400; index++) {
        const batch = makeBatch(server.projectToken, id, index);
        try {
          const response = await fetch(`${server.url}/batch/`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: batch.body,
          });
          (response.status === 200 ? acknowledged : unacknowledged).push(batch);
        } catch {
          unacknowledged.push(batch);
          return;
        }
      }
    };
    const senders = [0, 1, 2, 3].map(sender);
    while (acknowledged.length < 40) await new Promise((resolve) => setTimeout(resolve, 20));
    await server.kill();
    stop = true;
    await Promise.all(senders);
    assert.ok(unacknowledged.length > 0, 'the kill interrupted requests in flight');

    await server.start();
    for (const batch of [...unacknowledged, ...acknowledged.slice(0, 5)]) {
      const response = await fetch(`${server.url}/batch/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: batch.body,
      });
      assert.equal(response.status, 200);
    }
    await server.stop();

    const data = await readStoredData(server);
    const counts = new Map<string, number>();
    for (const event of data.events) counts.set(event.uuid, (counts.get(event.uuid) ?? 0) + 1);
    const expected = [...acknowledged, ...unacknowledged].flatMap((batch) => batch.uuids);
    for (const uuid of expected) assert.equal(counts.get(uuid), 1, `event ${uuid} stored ${counts.get(uuid) ?? 0} times`);
    assert.equal(data.events.length, expected.length);
    assert.equal(data.outboxBacklog, 0);
    for (const person of data.persons) {
      assert.equal(data.replicaPersons.get(person.uuid)?.person_id, person.id);
      for (const distinctId of person.distinct_ids) assert.equal(data.replicaDistinctIds.get(distinctId), person.uuid);
    }
    const identified = data.persons.filter((person) => person.distinct_ids.some((id) => id.startsWith('anon-')));
    assert.ok(identified.every((person) => person.distinct_ids.length === 2 && person.is_identified));
  });
});
