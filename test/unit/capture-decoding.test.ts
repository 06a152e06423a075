import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { test } from 'node:test';
import fc from 'fast-check';
import LZString from 'lz-string';
import { parseCapture } from '../../src/capture/event-parser.js';
import { normalizeEvent } from '../../src/capture/normalize-event.js';
import { decodeCapturePayload, type RawCaptureRequest } from '../../src/capture/payload-decoder.js';
import { ApiError } from '../../src/errors.js';

const LIMIT = 2 * 1024 * 1024;
const request = (body: Buffer | string, extra: Partial<RawCaptureRequest> = {}): RawCaptureRequest => ({
  body: Buffer.from(body),
  query: {},
  contentType: undefined,
  contentEncoding: undefined,
  limitBytes: LIMIT,
  ...extra,
});
const events = [{ event: 'e', distinct_id: 'd', properties: { token: 'phc_x' } }];
const text = JSON.stringify(events);

test('decodes every encoding the SDKs use', () => {
  const decode = (raw: RawCaptureRequest) => decodeCapturePayload(raw).json;
  assert.deepEqual(decode(request(text)), events);
  assert.deepEqual(decode(request(zlib.gzipSync(text), { contentType: 'text/plain' })), events);
  assert.deepEqual(decode(request(zlib.gzipSync(text), { contentEncoding: 'gzip' })), events);
  assert.deepEqual(decode(request(Buffer.from(text).toString('base64'))), events);
  assert.deepEqual(
    decode(request(`data=${encodeURIComponent(Buffer.from(text).toString('base64'))}`, { contentType: 'application/x-www-form-urlencoded' })),
    events,
  );
  assert.deepEqual(
    decode(request(`data=${Buffer.from(text).toString('base64')}`, { contentType: 'application/x-www-form-urlencoded' })),
    events,
    "form decoding turns base64's + into spaces; they are restored",
  );
  assert.deepEqual(
    decode(request(`data=${encodeURIComponent(LZString.compressToBase64(text))}&compression=lz64`, { contentType: 'application/x-www-form-urlencoded' })),
    events,
  );
  assert.deepEqual(decode(request(LZString.compressToBase64(text), { query: { compression: 'lz64' } })), events);
  assert.deepEqual(decode(request('', { query: { data: Buffer.from(text).toString('base64') } })), events);
  assert.deepEqual(decode(request(zlib.gzipSync(Buffer.from(text).toString('base64')))), events);
});

test('undecodable payloads are InvalidPayload (400)', () => {
  for (const raw of [
    request(''),
    request('{"a": '),
    request(zlib.gzipSync(text).subarray(0, 10)),
    request('not base64 and not json'),
    request('nodata=1', { contentType: 'application/x-www-form-urlencoded' }),
    request('!!!', { query: { compression: 'lz64' } }),
  ]) {
    assert.throws(
      () => decodeCapturePayload(raw),
      (error: unknown) => error instanceof ApiError && error.status === 400,
    );
  }
});

test('a decompressed payload over the limit is 413', () => {
  const bomb = zlib.gzipSync(Buffer.alloc(LIMIT + 10, 0x20));
  assert.throws(
    () => decodeCapturePayload(request(bomb)),
    (error: unknown) => error instanceof ApiError && error.status === 413,
  );
});

test('tokens: the batch token wins, then per-event fields, then the fallback', () => {
  assert.equal(parseCapture({ api_key: 'phc_a', batch: [{ event: 'e', distinct_id: 'd', token: 'phc_b' }] }, null).token, 'phc_a');
  assert.equal(parseCapture([{ event: 'e', distinct_id: 'd', $token: 'phc_b' }], null).token, 'phc_b');
  assert.equal(parseCapture({ event: 'e', distinct_id: 'd', properties: { token: 'phc_c' } }, null).token, 'phc_c');
  assert.equal(parseCapture([{ event: 'e', distinct_id: 'd' }], 'phc_q').token, 'phc_q');
  assert.throws(() => parseCapture([{ event: 'e', distinct_id: 'd' }], null), { status: 401, code: 'missing_api_key' });
  assert.throws(() => parseCapture([{ event: 'e', distinct_id: 'd', token: 'phx_personal' }], null), { status: 401, code: 'invalid_api_key' });
});

test('distinct ids: top level wins, numbers and objects are stringified, 200 characters at most', () => {
  const one = (raw: Record<string, unknown>) => parseCapture({ api_key: 'phc_a', batch: [{ event: 'e', ...raw }] }, null).events[0]!;
  assert.equal(one({ distinct_id: 23, properties: { distinct_id: 'x' } }).distinctId, '23');
  assert.equal(one({ $distinct_id: 'dollar' }).distinctId, 'dollar');
  assert.equal(one({ properties: { distinct_id: { a: 1 } } }).distinctId, '{"a":1}');
  assert.equal(one({ distinct_id: 'x'.repeat(300) }).distinctId.length, 200);
  assert.throws(() => one({ distinct_id: null }), { status: 400 });
  assert.throws(() => one({ distinct_id: ' ' }), { status: 400 });
});

test('property: arbitrary bytes and JSON only ever fail with a 4xx ApiError', () => {
  const pipeline = (raw: RawCaptureRequest) => {
    const decoded = decodeCapturePayload(raw);
    const parsed = parseCapture(decoded.json, decoded.formToken);
    for (const event of parsed.events) normalizeEvent(event, { now: Date.now(), sentAt: null, ip: null });
  };
  const onlyClientErrors = (raw: RawCaptureRequest) => {
    try {
      pipeline(raw);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
    }
  };
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 512 }), fc.constantFrom(undefined, 'gzip', 'lz64', 'base64'), (bytes, compression) =>
      onlyClientErrors(request(Buffer.from(bytes), { query: compression ? { compression } : {} })),
    ),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(fc.jsonValue(), (value) => onlyClientErrors(request(JSON.stringify(value)))),
    { numRuns: 500 },
  );
  const eventShape = fc.record(
    {
      event: fc.oneof(fc.string(), fc.constantFrom('$identify', '$create_alias', '$groupidentify', '$pageview'), fc.jsonValue()),
      distinct_id: fc.oneof(fc.string(), fc.integer(), fc.jsonValue()),
      properties: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue()),
      timestamp: fc.oneof(
        fc.string(),
        fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
        fc.jsonValue(),
      ),
      uuid: fc.oneof(fc.uuid(), fc.string()),
      $set: fc.jsonValue(),
      offset: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  fc.assert(
    fc.property(fc.array(eventShape, { maxLength: 5 }), fc.option(fc.string()), (batch, sentAt) =>
      onlyClientErrors(request(JSON.stringify({ api_key: 'phc_a', batch, sent_at: sentAt }))),
    ),
    { numRuns: 500 },
  );
});
