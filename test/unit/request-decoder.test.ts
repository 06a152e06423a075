import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { test } from 'node:test';
import fc from 'fast-check';
import { acceptCaptureRequest, type CaptureRequest } from '../../src/capture/accept-request.js';
import { loggedEventsText } from '../../src/capture/capture-log.js';
import { RequestDecoder } from '../../src/capture/request-decoder.js';
import { ApiError } from '../../src/errors.js';

const NOW = Date.UTC(2024, 5, 15, 10, 20, 0);

function request(body: Buffer | string, extra: Partial<CaptureRequest> = {}): CaptureRequest {
  return {
    body: Buffer.from(body),
    query: {},
    contentType: undefined,
    contentEncoding: undefined,
    limitBytes: 2 * 1024 * 1024,
    ip: '10.0.0.1',
    now: NOW,
    ...extra,
  };
}

/** What the main thread would have decided itself: the accepted events, or the ApiError's body. */
function inline(raw: CaptureRequest) {
  try {
    const accepted = acceptCaptureRequest(raw);
    return { token: accepted.token, events: JSON.parse(JSON.stringify(accepted.events)) };
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return { status: error.status, body: error.toBody() };
  }
}

async function threaded(decoder: RequestDecoder, raw: CaptureRequest) {
  try {
    const decoded = await decoder.decode(raw);
    const json = loggedEventsText(decoded.events);
    const events = JSON.parse(json) as { uuid?: string; properties: unknown }[];
    assert.equal(decoded.eventCount, events.length);
    for (const [index, event] of events.entries()) {
      assert.ok(decoded.propertiesSpans, 'the spans come back from the thread');
      const [start, end] = decoded.propertiesSpans.subarray(index * 2, index * 2 + 2);
      assert.equal(Buffer.from(decoded.events).subarray(start, end).toString('utf8'), JSON.stringify(event.properties), 'each span is its properties');
    }
    return { token: decoded.token, events };
  } catch (error) {
    assert.ok(error instanceof ApiError, String(error));
    return { status: error.status, body: error.toBody() };
  }
}

const uuid = '0190a3f2-0000-7000-8000-000000000001';

test('the decoding thread accepts and refuses exactly as the request alone decides, in order', async () => {
  const decoder = new RequestDecoder();
  try {
    // Characters of two, three and four UTF-8 bytes, and one capture replaces: spans count bytes of the replaced text.
    const properties = { $browser: 'Firefox', city: 'Zürich – 東京 😀', note: 'a\u0000b' };
    const batch = { api_key: 'phc_x', batch: [{ event: '$pageview', distinct_id: 'd', uuid, properties }] };
    const requests = [
      request(zlib.gzipSync(JSON.stringify(batch)), { contentEncoding: 'gzip' }),
      request('not json'),
      request(JSON.stringify({ batch: batch.batch })),
      request(JSON.stringify({ ...batch, batch: [{ event: 'e', distinct_id: 'd', uuid: 'nope' }] })),
      request(JSON.stringify({ api_key: 'phc_x', batch: [] })),
    ];
    const answers = await Promise.all(requests.map((raw) => threaded(decoder, raw)));
    assert.deepEqual(answers, requests.map(inline));
    assert.equal(answers[0]!.token, 'phc_x');
    assert.equal((answers[1] as { status: number }).status, 400);
    assert.equal((answers[2] as { status: number }).status, 401);
  } finally {
    await decoder.close();
  }
});

test('property: arbitrary bodies get the same answer from the decoding thread as inline', async () => {
  const decoder = new RequestDecoder();
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.json().map((json) => new TextEncoder().encode(json)),
        ),
        async (bytes) => {
          const raw = request(Buffer.from(bytes));
          // An event without a uuid gets a fresh one on each side.
          const withoutUuids = (answer: { events?: { uuid?: string }[] }) => {
            for (const event of answer.events ?? []) delete event.uuid;
            return answer;
          };
          assert.deepEqual(withoutUuids(await threaded(decoder, raw)), withoutUuids(inline(raw)));
        },
      ),
      { numRuns: 200 },
    );
  } finally {
    await decoder.close();
  }
});

test('a closed decoder fails what it still had, and starts a new thread for the next request', async () => {
  const decoder = new RequestDecoder();
  const raw = request(JSON.stringify({ api_key: 'phc_x', batch: [{ event: 'e', distinct_id: 'd', uuid }] }));
  await decoder.decode(raw);
  const inFlight = assert.rejects(decoder.decode(raw), /closed/);
  await decoder.close();
  await inFlight;
  assert.equal((await decoder.decode(raw)).eventCount, 1);
  await decoder.close();
});
