import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PostHog } from 'posthog-node';
import { readStoredData, type StoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

/** The real posthog-node SDK against a running Tally, compressed and uncompressed. */
describe('posthog-node SDK', () => {
  let server: TallyServer;
  let data: StoredData;
  const errors: unknown[] = [];

  before(async () => {
    server = await TallyServer.start();
    for (const disableCompression of [false, true]) {
      const suffix = disableCompression ? 'plain' : 'gzip';
      const client = new PostHog(server.projectToken, { host: server.url, flushAt: 50, flushInterval: 0, disableCompression });
      client.on('error', (error) => errors.push(error));
      client.capture({ distinctId: `anon-${suffix}`, event: 'page viewed', properties: { path: '/pricing', amount: 5 } });
      client.identify({ distinctId: `user-${suffix}`, properties: { $set: { email: `${suffix}@x.io` }, $anon_distinct_id: `anon-${suffix}` } });
      client.alias({ distinctId: `user-${suffix}`, alias: `alias-${suffix}` });
      client.groupIdentify({ groupType: 'company', groupKey: `acme-${suffix}`, properties: { name: `Acme ${suffix}` } });
      client.capture({ distinctId: `user-${suffix}`, event: 'order placed', groups: { company: `acme-${suffix}` } });
      await client.shutdown();
    }
    await server.stop();
    data = await readStoredData(server);
  });
  after(() => server.dispose());

  test('every call is accepted', () => {
    assert.deepEqual(errors, []);
    assert.equal(data.events.length, 10);
  });

  for (const suffix of ['gzip', 'plain']) {
    test(`${suffix}: capture, identify and alias end with one identified person`, () => {
      const person = data.persons.find((p) => p.distinct_ids.includes(`user-${suffix}`))!;
      assert.deepEqual(person.distinct_ids, [`anon-${suffix}`, `user-${suffix}`, `alias-${suffix}`]);
      assert.equal(person.is_identified, true);
      assert.equal(person.properties.email, `${suffix}@x.io`);
      const viewed = data.events.find((event) => event.event === 'page viewed' && event.distinct_id === `anon-${suffix}`)!;
      assert.equal(viewed.properties.path, '/pricing');
      assert.equal(viewed.properties.amount, 5);
      assert.equal(viewed.properties.$lib, 'posthog-node');
      assert.equal(viewed.person_id, person.uuid);
    });

    test(`${suffix}: groupIdentify and groups`, () => {
      const group = data.groups.find((g) => g.group_key === `acme-${suffix}`)!;
      assert.deepEqual(group.properties, { name: `Acme ${suffix}` });
      const order = data.events.find((event) => event.event === 'order placed' && event.distinct_id === `user-${suffix}`)!;
      assert.equal(order.$group_0, `acme-${suffix}`);
    });
  }
});
