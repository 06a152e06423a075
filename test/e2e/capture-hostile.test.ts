import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { CatalogCaptureLog, type CaptureLog, type CaptureLogEntry } from '../../src/capture/capture-log.js';
import { FileCaptureLog } from '../../src/capture/spool/file-capture-log.js';
import { loadConfig } from '../../src/config.js';
import { openCatalog } from '../../src/storage/catalog/catalog.js';
import { CAPTURE_LOG_DIR } from '../../src/stores.js';
import { TallyServer } from '../support/tally.js';

const MB = 1024 * 1024;
const big = 'x'.repeat(MB);

/** A request body as text: some values (1e400, lone surrogates, U+0000) only exist as JSON text. */
interface HostileRequest {
  name: string;
  /** The batch's events, as JSON text, with the project token filled in. */
  body: (token: string) => string;
  /** What capture answers: 400 only where PostHog refuses the request too. */
  status: 200 | 400;
}

function batch(events: unknown[], extra: Record<string, unknown> = {}): (token: string) => string {
  return (token) => JSON.stringify({ api_key: token, batch: events, ...extra });
}

function rawBatch(eventsJson: string): (token: string) => string {
  return (token) => `{"api_key":${JSON.stringify(token)},"batch":[${eventsJson}]}`;
}

const hostileTimes = ['0001-01-01T00:00:00Z', '1899-06-01T00:00:00Z', '9999-12-31T23:59:59Z'];
const sentAts = [undefined, new Date().toISOString(), '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z'];

/** An object whose keys make `String(value)` and template literals throw. */
const unprintable = { toString: 1, valueOf: 2 };

const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);

const HOSTILE: HostileRequest[] = [
  ...sentAts.map(
    (sentAt, index): HostileRequest => ({
      name: `timestamps out of range, sent_at ${sentAt ?? 'absent'}`,
      body: batch(
        hostileTimes.flatMap((timestamp) => [
          { event: 'hostile time', distinct_id: `time-${index}`, timestamp },
          { event: 'hostile time', distinct_id: `time-${index}`, timestamp, offset: 1e15 },
          { event: 'hostile time', distinct_id: `time-${index}`, timestamp, offset: -1e15 },
          { event: 'hostile time', distinct_id: `time-${index}`, timestamp, offset: 5000 },
        ]),
        sentAt === undefined ? {} : { sent_at: sentAt },
      ),
      status: 200,
    }),
  ),
  {
    name: 'timestamps of other types',
    body: batch([
      { event: 'hostile time', distinct_id: 'time-types', timestamp: 1e308 },
      { event: 'hostile time', distinct_id: 'time-types', timestamp: { at: 'noon' } },
      { event: 'hostile time', distinct_id: 'time-types', timestamp: 'not a time' },
      { event: 'hostile time', distinct_id: 'time-types', timestamp: '-99999999999999999' },
    ]),
    status: 200,
  },
  {
    name: 'numbers beyond Int64 and Float64',
    body: rawBatch(
      '{"event":"hostile numbers","distinct_id":1e400,"properties":{"inf":1e400,"neg":-1e400,"int":123456789012345678901234567890,' +
        '"$set":{"score":1e400,"rank":-123456789012345678901234567890},"$groups":{"company":1e400},"$session_id":1e400}}',
    ),
    status: 200,
  },
  {
    name: 'nesting as deep as capture takes',
    body: batch([{ event: 'hostile depth', distinct_id: 'deep', properties: { deep: nested(124), $set: { deep: nested(123) } } }]),
    status: 200,
  },
  {
    name: 'nesting deeper than capture takes',
    body: batch([{ event: 'hostile depth', distinct_id: 'deep', properties: { deep: nested(200) } }]),
    status: 400,
  },
  {
    name: '1 MB names, keys and values',
    body: batch([
      {
        event: big,
        distinct_id: big,
        properties: {
          value: big,
          [big]: 'key',
          $set: { value: big, [big]: 1 },
          $set_once: { [`once-${big}`]: 1 },
          $session_id: big,
          $groups: { company: big, [big]: 'acme' },
          $current_url: big,
        },
      },
      { event: '$identify', distinct_id: 'long-ids', properties: { $anon_distinct_id: big } },
      { event: '$create_alias', distinct_id: 'long-ids', properties: { alias: `${big}y` } },
      { event: '$groupidentify', distinct_id: 'long-ids', properties: { $group_type: big, $group_key: 'k', $group_set: { name: 'n' } } },
      { event: '$groupidentify', distinct_id: 'long-ids', properties: { $group_type: 'company', $group_key: big, $group_set: { [big]: big } } },
    ]),
    status: 200,
  },
  {
    name: '10,000 properties and 10,000 person properties',
    body: batch([
      {
        event: 'hostile width',
        distinct_id: 'wide',
        properties: {
          ...Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`p${index}`, index])),
          $set: Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`s${index}`, `v${index}`])),
        },
      },
    ]),
    status: 200,
  },
  {
    name: 'U+0000 and lone surrogates in names, keys and values',
    body: rawBatch(
      [
        '{"event":"hostile \\u0000 text \\ud800","distinct_id":"nul\\u0000id\\udfff","properties":{"k\\u0000ey":"v\\u0000al","\\ud800":"\\udc00",' +
          '"$set":{"\\u0000":"\\ud83d","e\\u0000mail":"a\\u0000@b"},"$groups":{"t\\u0000ype":"k\\u0000ey"},"$elements_chain":"a\\u0000b"}}',
        '{"event":"$identify","distinct_id":"nul\\u0000id\\udfff","properties":{"$anon_distinct_id":"anon\\u0000\\ud800"}}',
        '{"event":"$groupidentify","distinct_id":"x","properties":{"$group_type":"t\\u0000ype","$group_key":"k\\u0000ey","$group_set":{"n\\u0000":"\\udbff"}}}',
      ].join(','),
    ),
    status: 200,
  },
  {
    name: 'odd $groups',
    body: batch([
      { event: 'hostile groups', distinct_id: 'groups', properties: { $groups: 'company' } },
      { event: 'hostile groups', distinct_id: 'groups', properties: { $groups: ['a', 'b'] } },
      { event: 'hostile groups', distinct_id: 'groups', properties: { $groups: { '': '', company: { nested: [1, { deeper: true }] } } } },
      { event: 'hostile groups', distinct_id: 'groups', properties: { $groups: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7' } } },
      { event: 'hostile groups', distinct_id: 'groups', properties: { $groups: JSON.parse('{"__proto__":"p","toString":"t","constructor":"c"}') } },
      { event: '$groupidentify', distinct_id: 'groups', properties: { $group_type: 'company', $group_key: null, $group_set: 'name' } },
      { event: '$groupidentify', distinct_id: 'groups', properties: { $group_type: 5, $group_key: unprintable, $group_set: [1] } },
      { event: '$groupidentify', distinct_id: 'groups', properties: { $group_type: 'company', $group_key: unprintable, $group_set: unprintable } },
    ]),
    status: 200,
  },
  {
    name: '$set, $set_once and $unset of the wrong type in properties',
    body: batch([
      { event: 'hostile set', distinct_id: 'set', properties: { $set: 'plan', $set_once: 5, $unset: { a: 1 } } },
      { event: 'hostile set', distinct_id: 'set', properties: { $set: [1, 2], $set_once: null, $unset: 'plan' } },
      {
        event: 'hostile set',
        distinct_id: 'set',
        properties: { $set: JSON.parse('{"__proto__":{"polluted":true},"toString":1}'), $unset: [5, null, 'toString'] },
      },
      { event: '$identify', distinct_id: 'set', properties: { $anon_distinct_id: unprintable, $set: unprintable } },
      { event: '$create_alias', distinct_id: 'set', properties: { alias: ['a'] } },
      { event: '$identify', distinct_id: 'set', properties: { $anon_distinct_id: ' "undefined" ' } },
      { event: '$merge_dangerously', distinct_id: 'set', properties: { alias: 1e308 } },
      { event: 'hostile set', distinct_id: 'set', properties: { $process_person_profile: 'false' } },
    ]),
    status: 200,
  },
  { name: 'a top-level $set that is not an object', body: batch([{ event: 'hostile set', distinct_id: 'set', $set: 'plan' }]), status: 400 },
  {
    name: 'garbage elements',
    body: batch([
      { event: '$autocapture', distinct_id: 'elements', properties: { $elements: 'button' } },
      {
        event: '$autocapture',
        distinct_id: 'elements',
        properties: {
          $elements: [
            1,
            null,
            'a',
            [],
            {
              tag_name: 5,
              attr__class: unprintable,
              classes: [unprintable, null, 7],
              nth_child: unprintable,
              nth_of_type: [1],
              attr__x: unprintable,
              $el_text: { t: 1 },
            },
            { tag_name: 'a', attr__href: unprintable, href: 5, attr__id: 9, attr_id: unprintable, text: 'q"u\\ote' },
          ],
        },
      },
      { event: '$autocapture', distinct_id: 'elements', properties: { $elements_chain: 5, $elements: { tag_name: 'a' } } },
    ]),
    status: 200,
  },
  {
    name: 'one uuid twice, and names of other types',
    body: batch([
      { event: 'hostile duplicate', distinct_id: 'dup', uuid: '0190a3f2-0000-7000-8000-0000000000aa' },
      { event: 'hostile duplicate', distinct_id: 'dup', uuid: '0190A3F2-0000-7000-8000-0000000000AA' },
      { event: 'hostile duplicate', distinct_id: unprintable },
      { event: 'hostile duplicate', distinct_id: ['list'] },
    ]),
    status: 200,
  },
];

const KNOWN_GOOD = 'known good';

interface TrendSeries {
  count: number;
}

async function knownGoodCount(server: TallyServer): Promise<number> {
  const response = await server.get<{ result: TrendSeries[] }>(
    `/api/projects/1/insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: KNOWN_GOOD }]))}&date_from=-1d`,
  );
  assert.equal(response.status, 200, response.text);
  return response.body.result[0]?.count ?? 0;
}

/**
 * Hostile capture requests through the whole pipeline: capture, the consumer, the API, a stop
 * and a restart. Capture makes every value storable, so nothing is even set aside; a known-good
 * event sent after them is counted at once and after the restart.
 */
describe('capture: hostile events never stop ingestion, the API or a restart', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('every hostile request is answered 200 or 400, and what follows is processed', async () => {
    await server.start();
    const sentFrom = Date.now();
    for (const hostile of HOSTILE) {
      const response = await server.request('POST', '/batch/', {
        key: null,
        rawBody: hostile.body(server.projectToken),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(response.status, hostile.status, `${hostile.name}: ${response.text}`);
    }
    const good = await server.request('POST', '/batch/', {
      key: null,
      body: { api_key: server.projectToken, batch: [{ event: KNOWN_GOOD, distinct_id: 'good' }] },
    });
    assert.equal(good.status, 200);
    const sentUntil = Date.now();

    const readFrom = Date.now();
    assert.equal(await knownGoodCount(server), 1);
    assert.ok(Date.now() - readFrom < 10_000, 'counted within seconds');

    for (const path of [
      '/api/projects/1/persons/',
      '/api/projects/1/persons/?search=nul',
      '/api/projects/1/event_definitions/',
      '/api/projects/1/property_definitions/?search=s1',
      '/api/projects/1/persons/values/?key=value',
      `/api/projects/1/insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: 'hostile time' }]))}&breakdown=$session_id&date_from=-1d`,
    ]) {
      const response = await server.get(path);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
    }

    // The out-of-range times were stored as the ingestion time, and said so.
    const times = await server.get<{ result: { count: number; data: number[] }[] }>(
      `/api/projects/1/insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: 'hostile time' }]))}&date_from=all&interval=month`,
    );
    assert.equal(times.status, 200, times.text);
    assert.equal(times.body.result[0]!.count, 4 * 12 + 4, JSON.stringify(times.body.result[0]));
    assert.equal(times.body.result[0]!.data.filter((value) => value > 0).length, 1, 'every one in the month it was sent');

    const warnings = await server.get<{
      results: { type: string; count: number; sparkline: [number, string][]; warnings: { details: Record<string, unknown> }[] }[];
    }>('/api/projects/1/ingestion_warnings/');
    assert.equal(warnings.status, 200, warnings.text);
    const byType = new Map(warnings.body.results.map((summary) => [summary.type, summary]));
    assert.ok(byType.get('ignored_invalid_timestamp')!.count >= 4 * 3 + 3);
    assert.ok(byType.get('event_timestamp_in_future')!.count >= 4);
    const invalidTimes = byType.get('ignored_invalid_timestamp')!;
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(invalidTimes.sparkline, [[invalidTimes.count, today]], 'warnings per day as [count, day]');
    assert.ok(byType.has('invalid_process_person_profile'));
    assert.ok(byType.has('person_properties_size_violation'), 'a person is never given more than 512 KB of properties');
    assert.ok(byType.has('cannot_merge_with_illegal_distinct_id'));
    assert.equal(byType.get('event_processing_failed'), undefined, 'capture made every event storable: none was set aside');
    const past = byType
      .get('ignored_invalid_timestamp')!
      .warnings.find((warning) => warning.details.value === '0001-01-01T00:00:00Z' && warning.details.sentAt === null);
    assert.ok(past, 'a warning keeps the timestamp the event gave');
    assert.ok(sentUntil >= sentFrom);

    const stopFrom = Date.now();
    await server.stop();
    assert.ok(Date.now() - stopFrom < 30_000, 'SIGTERM stops the server within 30 s');

    await server.start();
    const health = await server.get('/_health', { key: null });
    assert.equal(health.status, 200);
    assert.equal(await knownGoodCount(server), 1, 'still counted after a restart');
  });
});

/** Appends entries to the capture log of a stopped server's data directory, file or catalog table. */
async function appendToStoppedLog(server: TallyServer, entries: CaptureLogEntry[]): Promise<void> {
  const config = loadConfig({ ...server.env, TALLY_DATA_DIR: server.dataDir });
  const catalog = await openCatalog(config);
  let log: CaptureLog;
  if (catalog.dialect === 'postgres') log = new CatalogCaptureLog(catalog.db, catalog.dialect);
  else log = await FileCaptureLog.open(path.join(server.dataDir, CAPTURE_LOG_DIR));
  try {
    await log.append(entries);
  } finally {
    await log.close();
    await catalog.close();
  }
}

describe('capture: a start-up never fails because of what the capture log holds', () => {
  const server = new TallyServer();
  after(() => server.dispose());

  test('an entry that is not events, an event processing cannot take and a torn write: the server starts, sets them aside and stores the rest', async () => {
    await server.start();
    await server.request('POST', '/batch/', { key: null, body: { api_key: server.projectToken, batch: [{ event: KNOWN_GOOD, distinct_id: 'good' }] } });
    assert.equal(await knownGoodCount(server), 1);
    await server.stop();

    const now = Date.now();
    const logged = (text: string, eventCount: number): CaptureLogEntry => ({ teamId: 1, receivedAt: now, eventCount, events: new TextEncoder().encode(text) });
    const event = (uuid: string, name: string) => ({
      uuid,
      event: name,
      distinctId: 'restarted',
      time: now,
      elementsChain: '',
      processPerson: true,
      properties: {},
    });
    await appendToStoppedLog(server, [
      logged('{"not": "a list of events"', 1),
      logged(JSON.stringify([event('not-a-uuid', KNOWN_GOOD), event('0190a3f2-0000-7000-8000-0000000000b1', KNOWN_GOOD)]), 2),
    ]);
    const logDir = path.join(server.dataDir, CAPTURE_LOG_DIR);
    if (fs.existsSync(logDir)) {
      const segment = fs
        .readdirSync(logDir)
        .filter((name) => name.endsWith('.log'))
        .sort()
        .at(-1)!;
      fs.appendFileSync(path.join(logDir, segment), Buffer.from('a write cut short by a crash'));
    }

    await server.start();
    assert.equal((await server.get('/_health', { key: null })).status, 200);
    assert.equal(await knownGoodCount(server), 2, 'the event beside the one set aside is stored');
    const warnings = await server.get<{ results: { type: string; count: number; warnings: { details: { eventUuid: string | null } }[] }[] }>(
      '/api/projects/1/ingestion_warnings/?q=event_processing_failed',
    );
    assert.equal(warnings.status, 200);
    assert.deepEqual(
      warnings.body.results.map((summary) => ({ type: summary.type, uuids: summary.warnings.map((warning) => warning.details.eventUuid).sort() })),
      [{ type: 'event_processing_failed', uuids: ['not-a-uuid', null] }],
    );
  });
});
