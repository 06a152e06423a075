import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { readStoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

/** Any UTF-16 code unit, lone surrogates often: fast-check's own string units are all well-formed. */
const codeUnit = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0, max: 0xffff }))
  .map((unit) => String.fromCharCode(unit));
const text = (maxLength: number) => fc.string({ unit: codeUnit, maxLength });
const json = () => fc.jsonValue({ stringUnit: codeUnit, maxDepth: 4 });
/** Arrays nested around the deepest JSON capture takes (128 levels, the request's own included). */
const deepArrays = fc.integer({ min: 120, max: 135 }).map((levels) => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`) as unknown);

/**
 * Arbitrary requests over HTTP: never a 5xx, a rejected request stores nothing, and whatever was
 * accepted is processed (reads answer 200 after it).
 */
describe('capture: property-based requests', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('arbitrary bodies never answer 5xx and never write partially', async () => {
    await server.start();
    const token = server.projectToken;
    let accepted = 0;
    const event = fc.record(
      {
        event: fc.oneof(fc.constantFrom('fuzz', '$identify', '$create_alias', '$groupidentify'), json()),
        distinct_id: fc.oneof(text(8), fc.integer(), fc.constant(null)),
        properties: fc.oneof(
          fc.record(
            {
              $anon_distinct_id: text(4),
              alias: text(4),
              $set: json(),
              $groups: fc.dictionary(text(4), text(4), { maxKeys: 3 }),
              $group_type: text(4),
              $group_key: text(4),
              deep: deepArrays,
            },
            { requiredKeys: [] },
          ),
          json(),
        ),
        timestamp: fc.oneof(
          text(30),
          fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
        ),
        uuid: fc.oneof(fc.uuid(), text(4)),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.array(event, { maxLength: 4 }).map((batch) => ({ bytes: Buffer.from(JSON.stringify({ api_key: token, batch })), size: batch.length })),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ bytes: Buffer.from(bytes), size: -1 })),
      json().map((value) => ({ bytes: Buffer.from(JSON.stringify(value)), size: -1 })),
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
    // Every accepted event is processed before a read answers: one that processing cannot take
    // would fail this read, and every read after it.
    const read = await server.get('/api/projects/1/persons/');
    // The server's log says which event processing refused (CI prints only the assertion).
    assert.equal(read.status, 200, `${read.text}\n${server.stdout.slice(-4000)}`);
    await server.stop();
    const data = await readStoredData(server);
    const identityEvents = new Set(['$identify', '$create_alias', '$groupidentify']);
    assert.ok(data.events.length <= accepted);
    assert.ok(data.events.every((stored) => stored.event === 'fuzz' || identityEvents.has(stored.event) || typeof stored.event === 'string'));
    assert.equal(data.outboxBacklog, 0);
  });
});

/** Keys that name Object.prototype members, or that a careless `String()` or merge would trip on. */
const trickyKey = fc.constantFrom('__proto__', 'toString', 'valueOf', 'constructor', 'hasOwnProperty', '$set', '$groups', '', ' ');
const hostileKey = fc.oneof(trickyKey, text(6), fc.string({ unit: codeUnit, minLength: 300, maxLength: 600 }));
/** Values as hostile as JSON allows; `1e400` and the like are put in as raw text (see `hostileBody`). */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text(12),
    fc.double(),
    fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 63, -(2 ** 64), 1e21, 0.1),
    fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }).map((big) => ({ $raw: big.toString() })),
    fc.constantFrom({ $raw: '1e400' }, { $raw: '-1e400' }, { $raw: '1E-400' }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 3 }),
  ),
})).value;
/** Times from year 1 to 9999, as ISO text, epoch numbers in text, or garbage. */
const hostileTime = fc.oneof(
  fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.integer({ min: -1e17, max: 1e17 }).map(String),
  text(12),
  fc.constant(undefined),
);
const hostileEvent = fc.record(
  {
    event: fc.oneof(fc.constantFrom('fuzz', '$identify', '$create_alias', '$merge_dangerously', '$groupidentify', '$autocapture'), text(8)),
    distinct_id: fc.oneof(text(8), fc.constantFrom('null', 'anonymous', '0', '[object Object]'), hostileValue),
    timestamp: hostileTime,
    offset: fc.oneof(fc.integer({ min: -1e16, max: 1e16 }), fc.double(), fc.constant(undefined)),
    properties: fc.record(
      {
        $anon_distinct_id: hostileValue,
        alias: hostileValue,
        $set: hostileValue,
        $set_once: hostileValue,
        $unset: hostileValue,
        $groups: fc.oneof(fc.dictionary(hostileKey, hostileValue, { maxKeys: 7 }), hostileValue),
        $group_type: hostileValue,
        $group_key: hostileValue,
        $group_set: hostileValue,
        $elements: fc.oneof(
          fc.array(
            fc.dictionary(
              fc.oneof(fc.constantFrom('tag_name', 'attr__class', 'classes', 'nth_child', 'attr__href', 'text', 'attr__id'), hostileKey),
              hostileValue,
            ),
          ),
          hostileValue,
        ),
        $elements_chain: hostileValue,
        $session_id: hostileValue,
        $process_person_profile: fc.oneof(fc.boolean(), hostileValue),
        $ignore_sent_at: fc.oneof(fc.boolean(), hostileValue),
        many: fc.integer({ min: 0, max: 2000 }).map((count) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, index]))),
        any: hostileValue,
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: ['event', 'distinct_id'] },
);

/** JSON text of a value, with `{$raw: text}` written as that text (numbers JSON.stringify cannot give). */
function hostileJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(hostileJson).join(',')}]`;
  const raw = (value as { $raw?: unknown }).$raw;
  if (typeof raw === 'string' && Object.keys(value).length === 1) return raw;
  return `{${Object.entries(value)
    .filter(([, member]) => member !== undefined)
    .map(([key, member]) => `${JSON.stringify(key)}:${hostileJson(member)}`)
    .join(',')}}`;
}

describe('capture: property-based hostile events through the whole pipeline', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('whatever is accepted is processed: reads never answer 5xx, nothing is set aside or stuck, a restart is healthy', async () => {
    await server.start();
    const token = server.projectToken;
    const trend = `/api/projects/1/insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: 'known good' }]))}&date_from=-1d`;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(hostileEvent, { minLength: 1, maxLength: 5 }), hostileTime, async (events, sentAt) => {
        const body = `{"api_key":${JSON.stringify(token)},"sent_at":${hostileJson(sentAt)},"batch":${hostileJson(events)}}`;
        const response = await fetch(`${server.url}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const answer = await response.text();
        assert.ok(response.status === 200 || response.status === 400, `${response.status} ${answer}`);
        if (response.status === 200) accepted += events.length;
        const read = await server.get(trend);
        assert.equal(read.status, 200, `${read.text}\n${server.stdout.slice(-4000)}`);
      }),
      { numRuns: 150 },
    );
    assert.ok(accepted > 0);
    await server.request('POST', '/batch/', { key: null, body: { api_key: token, batch: [{ event: 'known good', distinct_id: 'good' }] } });
    const counted = await server.get<{ result: { count: number }[] }>(trend);
    assert.equal(counted.body.result[0]!.count, 1);
    for (const path of [
      '/api/projects/1/persons/',
      '/api/projects/1/event_definitions/',
      '/api/projects/1/property_definitions/',
      '/api/projects/1/ingestion_warnings/',
    ]) {
      const response = await server.get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
    }
    const failed = await server.get<{ results: unknown[] }>('/api/projects/1/ingestion_warnings/?q=event_processing_failed');
    assert.deepEqual(failed.body.results, [], 'capture made every accepted event storable: none was set aside');

    await server.restart();
    assert.equal((await server.get('/_health', { key: null })).status, 200);
    assert.equal((await server.get<{ result: { count: number }[] }>(trend)).body.result[0]!.count, 1);
    await server.stop();
    const data = await readStoredData(server);
    assert.ok(data.events.length <= accepted + 1);
    assert.equal(data.outboxBacklog, 0);
  });
});
