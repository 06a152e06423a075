import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import LZString from 'lz-string';
import { readStoredData, type StoredData } from '../support/stored-data.js';
import { TallyServer } from '../support/tally.js';

const json = (value: unknown) => JSON.stringify(value);

/** Every payload form the SDKs send, each storing one event named after the case. */
describe('capture: payload forms, responses and timestamps', () => {
  let server: TallyServer;
  let data: StoredData;
  let token: string;
  const event = (name: string, extra: Record<string, unknown> = {}) => ({
    event: name,
    distinct_id: `d-${name}`,
    properties: { token, ...((extra.properties as object) ?? {}) },
    ...extra,
  });
  const post = (path: string, body: string | Buffer, headers: Record<string, string> = {}) =>
    server.request('POST', path, { key: null, rawBody: body, headers });
  const storedNamed = (name: string) => data.events.filter((stored) => stored.event === name);
  let sendTimes: Record<string, number> = {};

  before(async () => {
    server = await TallyServer.start();
    token = server.projectToken;
    const responses: Record<string, { status: number; text: string; cors?: string | null }> = {};
    const record = async (name: string, response: Promise<{ status: number; text: string; headers: Headers }>) => {
      const done = await response;
      responses[name] = { status: done.status, text: done.text, cors: done.headers.get('access-control-allow-origin') };
    };

    // Lone UTF-16 surrogates, escaped in JSON text and raw in lz-string text, with a valid pair.
    await record(
      'lone-surrogates',
      post(
        '/batch/',
        `{"api_key":"${token}","batch":[{"event":"lone-surrogates","distinct_id":"d-lone\\ud800","properties":{"k\\udc00":"v\\ud83d","pair":"\\ud83d\\ude00","$set":{"name\\udfff":"n"}}}]}`,
        { 'content-type': 'application/json' },
      ),
    );
    await record(
      'lone-surrogates-lz',
      post(
        '/e/?compression=lz64',
        `data=${encodeURIComponent(LZString.compressToBase64(`[{"event":"lone-surrogates-lz","distinct_id":"d-lz\ud800","properties":{"token":"${token}"}}]`))}`,
        {
          'content-type': 'application/x-www-form-urlencoded',
        },
      ),
    );
    // 128 levels, the most serde_json (PostHog's capture) takes: stored as sent.
    await record(
      'deepest',
      post('/batch/', json({ api_key: token, batch: [event('deepest', { properties: { token, x: JSON.parse(`${'['.repeat(124)}${']'.repeat(124)}`) } })] }), {
        'content-type': 'application/json',
      }),
    );
    await record('json-batch', post('/batch/', json({ api_key: token, batch: [event('json-batch')] }), { 'content-type': 'application/json' }));
    await record(
      'gzip-header',
      post('/batch', zlib.gzipSync(json({ api_key: token, batch: [event('gzip-header')] })), {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      }),
    );
    await record(
      'gzip-sniffed',
      post('/e/', zlib.gzipSync(json({ api_key: token, batch: [event('gzip-sniffed')] })), { 'content-type': 'text/plain', origin: 'https://shop.example' }),
    );
    await record(
      'gzip-js-legacy',
      post(`/e/?compression=gzip-js&ip=1&_=${Date.now()}&ver=1.0`, zlib.gzipSync(json([event('gzip-js-legacy')])), { 'content-type': 'text/plain' }),
    );
    await record(
      'beacon-base64',
      post(
        '/e/?compression=base64&beacon=1',
        `data=${encodeURIComponent(Buffer.from(json({ api_key: token, batch: [event('beacon-base64')] })).toString('base64'))}`,
        { 'content-type': 'application/x-www-form-urlencoded' },
      ),
    );
    await record(
      'form-json',
      post('/capture/', `data=${encodeURIComponent(json(event('form-json')))}`, { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    await record(
      'lz64',
      post('/e/?compression=lz64', `data=${encodeURIComponent(LZString.compressToBase64(json([event('lz64')])))}`, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
    );
    await record(
      'lz64-form-field',
      post('/i/v0/e/', `compression=lz64&data=${encodeURIComponent(LZString.compressToBase64(json(event('lz64-form-field'))))}`, {
        'content-type': 'application/x-www-form-urlencoded',
      }),
    );
    await record('raw-base64', post('/track', Buffer.from(json([event('raw-base64')])).toString('base64'), { 'content-type': 'text/plain' }));
    await record('get-pixel', server.request('GET', `/e/?data=${encodeURIComponent(Buffer.from(json(event('get-pixel'))).toString('base64'))}`, { key: null }));
    await record('single-event', post('/i/v0/e', json(event('single-event')), { 'content-type': 'application/json' }));
    await record('engage', post('/engage/', json([event('engage')]), { 'content-type': 'application/json' }));

    const now = Date.now();
    sendTimes = { now };
    const past = new Date(now - 3_600_000).toISOString();
    const clientAhead = new Date(now + 60_000).toISOString();
    await post(
      '/batch/',
      json({
        api_key: token,
        sent_at: clientAhead,
        batch: [
          event('skewed', { timestamp: new Date(now + 50_000).toISOString() }),
          event('ignore-sent-at', { timestamp: '2024-01-01T00:00:00Z', properties: { token, $ignore_sent_at: true } }),
        ],
      }),
      { 'content-type': 'application/json' },
    );
    await post(
      '/batch/',
      json({
        api_key: token,
        batch: [
          event('as-given', { timestamp: '2024-02-03T04:05:06.789123Z' }),
          event('offset-wins', { timestamp: past, offset: 5000 }),
          event('far-future', { timestamp: '2999-01-01T00:00:00Z' }),
          event('garbage-time', { timestamp: 'not a time' }),
          event('with-zone', { timestamp: '2024-02-03T04:05:06+03' }),
        ],
      }),
      { 'content-type': 'application/json' },
    );
    await post(`/e/?_=${now + 120_000}`, json([event('query-sent-at', { timestamp: new Date(now + 110_000).toISOString() })]), {
      'content-type': 'application/json',
    });

    // U+0000 in names, keys and ids: PostgreSQL text cannot hold it.
    await record(
      'nul-bytes',
      post(
        '/batch/',
        json({
          api_key: token,
          batch: [
            event('nul-bytes', { properties: { token, 'k\u0000': 'v\u0000', $set: { 'p\u0000': 'q\u0000' } } }),
            event('$identify', { distinct_id: 'd-nul-user', properties: { token, $anon_distinct_id: 'd-nul\u0000anon' } }),
            event('$groupidentify', { properties: { token, $group_type: 'company\u0000', $group_key: 'acme\u0000', $group_set: { 'n\u0000': 1 } } }),
            event('nul\u0000name'),
          ],
        }),
        { 'content-type': 'application/json' },
      ),
    );

    // A backfill: one request whose events fall in 150 months, more partitions than ClickHouse
    // takes in one insert by default.
    const months = Array.from({ length: 150 }, (_, month) => event('backfill', { timestamp: new Date(Date.UTC(2000, month, 15)).toISOString() }));
    await record('backfill', post('/batch/', json({ api_key: token, batch: months }), { 'content-type': 'application/json' }));

    const duplicate = event('duplicate', { uuid: '01900000-0000-7000-8000-0000000000aa' });
    await post('/batch/', json({ api_key: token, batch: [duplicate, duplicate] }), { 'content-type': 'application/json' });
    await record('duplicate-retry', post('/batch/', json({ api_key: token, batch: [duplicate] }), { 'content-type': 'application/json' }));

    (globalThis as { captureResponses?: typeof responses }).captureResponses = responses;
    await server.stop();
    data = await readStoredData(server);
    await server.start();
  });
  after(() => server.dispose());

  const responses = () => (globalThis as { captureResponses?: Record<string, { status: number; text: string; cors?: string | null }> }).captureResponses!;

  for (const name of [
    'deepest',
    'json-batch',
    'gzip-header',
    'gzip-sniffed',
    'gzip-js-legacy',
    'form-json',
    'lz64',
    'lz64-form-field',
    'raw-base64',
    'get-pixel',
    'single-event',
    'engage',
  ]) {
    test(`${name}: answered 200 {"status":1} and stored once`, () => {
      assert.equal(responses()[name]!.status, 200);
      assert.equal(responses()[name]!.text, '{"status":1}');
      assert.equal(storedNamed(name).length, 1);
      assert.equal(storedNamed(name)[0]!.distinct_id, `d-${name}`);
    });
  }

  test('lone UTF-16 surrogates become U+FFFD in keys and values, pairs stay, and the events after them are processed', () => {
    assert.equal(responses()['lone-surrogates']!.status, 200);
    assert.equal(responses()['lone-surrogates-lz']!.status, 200);
    const [escaped] = storedNamed('lone-surrogates');
    assert.equal(escaped!.distinct_id, 'd-lone\ufffd');
    assert.equal(escaped!.properties['k\ufffd'], 'v\ufffd');
    assert.equal(escaped!.properties.pair, '\u{1F600}');
    assert.equal(escaped!.person_properties['name\ufffd'], 'n');
    assert.equal(storedNamed('lone-surrogates-lz')[0]!.distinct_id, 'd-lz\ufffd');
    assert.equal(storedNamed('json-batch').length, 1);
  });

  test('beacon=1 answers 204 with no body', () => {
    assert.equal(responses()['beacon-base64']!.status, 204);
    assert.equal(responses()['beacon-base64']!.text, '');
    assert.equal(storedNamed('beacon-base64').length, 1);
  });

  test('CORS mirrors the origin', async () => {
    assert.equal(responses()['gzip-sniffed']!.cors, 'https://shop.example');
    const preflight = await server.request('OPTIONS', '/e/', {
      key: null,
      headers: { origin: 'https://a.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 200);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://a.example');
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
  });

  const storedTime = (name: string) => Date.parse(`${storedNamed(name)[0]!.timestamp.replace(' ', 'T')}Z`);

  test('timestamps: skew correction with sent_at, from the body or the _ query parameter', () => {
    assert.ok(Math.abs(storedTime('skewed') - (sendTimes.now! - 10_000)) < 5_000, 'timestamp − (sent_at − now)');
    assert.ok(Math.abs(storedTime('query-sent-at') - (sendTimes.now! - 10_000)) < 5_000);
  });

  test('timestamps: as given without sent_at, $ignore_sent_at honoured, offsets win, zones converted', () => {
    assert.equal(storedNamed('as-given')[0]!.timestamp, '2024-02-03 04:05:06.789123');
    assert.equal(storedNamed('ignore-sent-at')[0]!.timestamp, '2024-01-01 00:00:00.000000');
    assert.ok(Math.abs(storedTime('offset-wins') - (sendTimes.now! - 5_000)) < 5_000);
    assert.equal(storedNamed('with-zone')[0]!.timestamp, '2024-02-03 01:05:06.000000');
  });

  test('timestamps: the far future clamps to now and garbage becomes now', () => {
    assert.ok(Math.abs(storedTime('far-future') - sendTimes.now!) < 5_000);
    assert.ok(Math.abs(storedTime('garbage-time') - sendTimes.now!) < 5_000);
  });

  test('U+0000 in event names, property keys and values, anonymous ids and groups is stored as U+FFFD', async () => {
    assert.equal(responses()['nul-bytes']!.status, 200);
    const [stored] = storedNamed('nul-bytes');
    assert.equal(stored!.properties['k\ufffd'], 'v\ufffd');
    assert.equal(stored!.person_properties['p\ufffd'], 'q\ufffd');
    assert.equal(storedNamed('nul\ufffdname').length, 1);
    const identify = data.events.find((row) => row.event === '$identify' && row.distinct_id === 'd-nul-user');
    assert.equal(identify!.properties.$anon_distinct_id, 'd-nul\ufffdanon');
    const person = await server.get(`/api/projects/1/persons/?distinct_id=${encodeURIComponent('d-nul\ufffdanon')}`);
    assert.equal(person.status, 200, person.text);
    assert.deepEqual((person.body as { results: { distinct_ids: string[] }[] }).results[0]!.distinct_ids.sort(), ['d-nul-user', 'd-nul\ufffdanon']);
    // A search naming U+0000 finds the name stored with U+FFFD.
    const definitions = await server.get('/api/projects/1/event_definitions/?search=nul%00name');
    assert.equal(definitions.status, 200, definitions.text);
    assert.deepEqual(
      (definitions.body as { results: { name: string }[] }).results.map((row) => row.name),
      ['nul\ufffdname'],
    );
  });

  test('a backfill spanning 150 months in one request is stored whole', async () => {
    assert.equal(responses().backfill!.status, 200);
    const stored = storedNamed('backfill').map((stored) => stored.timestamp.slice(0, 7));
    assert.equal(stored.length, 150);
    assert.equal(new Set(stored).size, 150);
    assert.equal(stored.sort()[0], '2000-01');
    assert.equal(stored[149], '2012-06');
    const read = await server.get('/api/projects/1/persons/');
    assert.equal(read.status, 200, read.text);
  });

  test('an event uuid is stored once, within a request and across retries', () => {
    assert.equal(responses()['duplicate-retry']!.status, 200);
    assert.equal(storedNamed('duplicate').length, 1);
  });

  /** A batch of one event whose property `x` is arrays nested `levels` deep, written as text: JSON.stringify would overflow the stack. */
  const nestedBatch = (name: string, levels: number) =>
    `{"api_key":"${token}","batch":[{"event":"${name}","distinct_id":"d-${name}","properties":{"x":${'['.repeat(levels)}${']'.repeat(levels)}}}]}`;

  const invalid = (detail: string) => ({ type: 'validation_error', code: 'invalid_payload', detail: `Invalid payload: ${detail}`, attr: null });

  test('bad payloads are rejected whole with PostHog error bodies', async () => {
    const jsonHeaders = { 'content-type': 'application/json' };
    const cases: [string, string | Buffer, Record<string, string>, number, object | null][] = [
      ['/batch/', '', jsonHeaders, 400, invalid('request missing data payload')],
      ['/batch/', '{"api_key": ', jsonHeaders, 400, null],
      ['/batch/', zlib.gzipSync(json({ api_key: token, batch: [event('x')] })).subarray(0, 20), { 'content-type': 'text/plain' }, 400, null],
      ['/batch/', json({ api_key: token, batch: [] }), jsonHeaders, 400, invalid('request holds no event')],
      [
        '/batch/',
        json({ batch: [{ event: 'no-token', distinct_id: 'a' }] }),
        jsonHeaders,
        401,
        {
          type: 'authentication_error',
          code: 'missing_api_key',
          detail: 'API key not provided. You can find your project API key in PostHog project settings.',
          attr: null,
        },
      ],
      [
        '/batch/',
        json({ api_key: 'phc_unknown', batch: [event('x')] }),
        jsonHeaders,
        401,
        {
          type: 'authentication_error',
          code: 'invalid_api_key',
          detail: 'Project API key invalid. You can find your project API key in PostHog project settings.',
          attr: null,
        },
      ],
      ['/batch/', json({ api_key: server.personalApiKey, batch: [event('x')] }), jsonHeaders, 401, null],
      [
        '/batch/',
        json({ api_key: token, batch: [event('good-then-bad'), { event: 'no distinct id', properties: {} }] }),
        jsonHeaders,
        400,
        invalid("All events must have the event field 'distinct_id'!"),
      ],
      ['/batch/', json({ api_key: token, batch: [{ distinct_id: 'a' }] }), jsonHeaders, 400, invalid("All events must have the event name field 'event'!")],
      ['/batch/', json({ api_key: token, batch: [event('x', { distinct_id: '   ' })] }), jsonHeaders, 400, null],
      ['/batch/', json({ api_key: token, batch: [event('x', { uuid: 'not-a-uuid' })] }), jsonHeaders, 400, invalid("Event field 'uuid' is not a valid UUID")],
      [
        '/e/',
        json([
          { event: 'a', distinct_id: '1', properties: { token } },
          { event: 'b', distinct_id: '1', properties: { token: 'phc_other' } },
        ]),
        jsonHeaders,
        400,
        null,
      ],
      ['/e/', 'data=%7Bnot-json', { 'content-type': 'application/x-www-form-urlencoded' }, 400, null],
      // 129 levels: the body, the batch, the event, its properties and 125 nested arrays.
      ['/batch/', nestedBatch('too-deep', 125), jsonHeaders, 400, invalid('JSON nested deeper than 128 levels')],
      ['/batch/', nestedBatch('far-too-deep', 100_000), jsonHeaders, 400, invalid('JSON nested deeper than 128 levels')],
    ];
    for (const [path, body, headers, status, expected] of cases) {
      const response = await post(path, body, headers);
      assert.equal(response.status, status, `${path} ${String(body).slice(0, 60)} → ${response.text}`);
      if (expected) assert.deepEqual(response.body, expected);
      else assert.ok(['validation_error', 'authentication_error'].includes(response.body.type));
    }
  });

  test('oversized bodies answer 413', async () => {
    const onEvent = await server.announceBody('POST', '/e/', 3 * 1024 * 1024, { 'content-type': 'application/json' });
    assert.equal(onEvent.status, 413);
    const bomb = zlib.gzipSync(Buffer.alloc(30 * 1024 * 1024, 0x20));
    const onBatch = await post('/batch/', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(onBatch.status, 413);
  });

  test('rejected requests stored nothing', async () => {
    await server.stop();
    const after = await readStoredData(server);
    for (const name of ['good-then-bad', 'x', 'a', 'b', 'big', 'no-token']) {
      assert.equal(after.events.filter((stored) => stored.event === name).length, 0, name);
    }
    assert.equal(after.events.length, data.events.length);
  });
});
