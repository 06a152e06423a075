import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { readStoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

/** Arbitrary requests over HTTP: never a 5xx, and a rejected request stores nothing. */
describe('capture: property-based requests', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('arbitrary bodies never answer 5xx and never write partially', async () => {
    await server.start();
    const token = server.projectToken;
    let accepted = 0;
    const event = fc.record(
      {
        event: fc.oneof(fc.constantFrom('fuzz', '$identify', '$create_alias', '$groupidentify'), fc.jsonValue()),
        distinct_id: fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)),
        properties: fc.oneof(
          fc.record({ $anon_distinct_id: fc.string({ maxLength: 4 }), alias: fc.string({ maxLength: 4 }), $set: fc.jsonValue() }, { requiredKeys: [] }),
          fc.jsonValue(),
        ),
        timestamp: fc.oneof(fc.string(), fc.date({ noInvalidDate: true }).map((date) => date.toISOString())),
        uuid: fc.oneof(fc.uuid(), fc.string({ maxLength: 4 })),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.array(event, { maxLength: 4 }).map((batch) => ({ bytes: Buffer.from(JSON.stringify({ api_key: token, batch })), size: batch.length })),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ bytes: Buffer.from(bytes), size: -1 })),
      fc.jsonValue().map((value) => ({ bytes: Buffer.from(JSON.stringify(value)), size: -1 })),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), fc.constantFrom('/batch/', '/e/', '/i/v0/e/'), async ({ bytes, size }, gzip, path) => {
        const response = await fetch(server.url + path, {
          method: 'POST',
          headers: { 'content-type': gzip ? 'text/plain' : 'application/json' },
          body: gzip ? zlib.gzipSync(bytes) : bytes,
        });
        const text = await response.text();
        assert.ok(response.status < 500, `${response.status} ${text}`);
        if (response.status === 200) {
          assert.ok(size >= 0, 'only event batches are accepted');
          accepted += size;
        }
      }),
      { numRuns: 300 },
    );
    await server.stop();
    const data = await readStoredData(server);
    const identityEvents = new Set(['$identify', '$create_alias', '$groupidentify']);
    assert.ok(data.events.length <= accepted);
    assert.ok(data.events.every((stored) => stored.event === 'fuzz' || identityEvents.has(stored.event) || typeof stored.event === 'string'));
    assert.equal(data.outboxBacklog, 0);
  });
});
