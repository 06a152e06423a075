import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { loggedEventsBytes } from '../../src/capture/capture-log.js';
import { loggedPropertiesPieces, serializeLoggedEvents, type SerializedEvents } from '../../src/capture/logged-events-json.js';
import type { LoggedEvent } from '../../src/capture/normalize-event.js';
import { parsesStorable } from '../../src/util/well-formed-json.js';

/** The text the pieces make, written one after another, for events as the decoding thread hands them over. */
function loggedPropertiesText({ json, propertiesSpans }: SerializedEvents, index: number, added: [string, unknown][]): string {
  assert.ok(propertiesSpans, 'the events have spans');
  const pieces = loggedPropertiesPieces({ bytes: loggedEventsBytes(json), propertiesSpans }, index, added);
  return Buffer.concat(pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece))).toString('utf8');
}

const properties = fc.dictionary(fc.string({ unit: 'binary' }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 8 });

const loggedEvent: fc.Arbitrary<LoggedEvent> = fc.record({
  uuid: fc.uuid(),
  event: fc.string({ unit: 'binary', minLength: 1 }),
  distinctId: fc.string({ unit: 'binary', minLength: 1 }),
  properties,
  time: fc.double({ min: 0, max: 4e12, noNaN: true }),
  elementsChain: fc.string(),
  processPerson: fc.boolean(),
});

test('the log text parses to the events, and each span is its properties serialised as parsed back', () => {
  fc.assert(
    fc.property(fc.array(loggedEvent, { maxLength: 6 }), (events) => {
      const serialized = serializeLoggedEvents(events);
      const parsed = JSON.parse(serialized.json) as LoggedEvent[];
      assert.deepEqual(parsed, JSON.parse(JSON.stringify(events)));
      // Text holding a U+0000 or a lone surrogate is parsed with their replacement, which the spans would not give.
      if (!parsesStorable(serialized.json)) {
        assert.equal(serialized.propertiesSpans, undefined);
        return;
      }
      assert.equal(serialized.propertiesSpans?.length, events.length * 2);
      for (const [index, event] of parsed.entries()) {
        assert.equal(loggedPropertiesText(serialized, index, []), JSON.stringify(event.properties));
      }
    }),
  );
});

test('members added after parsing give the text a serialisation of the changed properties would', () => {
  const added = fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.oneof(fc.string({ unit: 'binary' }), fc.constant('company "7"'))), {
    selector: ([index]) => index,
    maxLength: 5,
  });
  fc.assert(
    fc.property(properties, added, (original, groups) => {
      const serialized = serializeLoggedEvents([
        { uuid: '0190aaaa-0000-7000-8000-000000000000', event: 'e', distinctId: 'd', properties: original, time: 1, elementsChain: '', processPerson: true },
      ]);
      fc.pre(serialized.propertiesSpans !== undefined);
      const [event] = JSON.parse(serialized.json) as LoggedEvent[];
      const added: [string, string][] = [];
      for (const [index, value] of groups) {
        const key = `$group_${index}`;
        if (Object.hasOwn(event!.properties, key)) continue;
        event!.properties[key] = value;
        added.push([key, value]);
      }
      assert.equal(loggedPropertiesText(serialized, 0, added), JSON.stringify(event!.properties));
    }),
  );
});

test('an empty object takes its first member without a comma', () => {
  const serialized = serializeLoggedEvents([
    { uuid: '0190aaaa-0000-7000-8000-000000000000', event: 'e', distinctId: 'd', properties: {}, time: 1.5, elementsChain: '', processPerson: false },
  ]);
  assert.deepEqual([...serialized.propertiesSpans!], [serialized.json.indexOf('{}'), serialized.json.indexOf('{}') + 2]);
  assert.equal(loggedPropertiesText(serialized, 0, [['$group_0', 'a"b']]), '{"$group_0":"a\\"b"}');
});

test('events whose text holds a U+0000 or a lone surrogate get no spans: the consumer parses them with replacement', () => {
  const event = (properties: Record<string, unknown>, distinctId = 'd'): LoggedEvent => ({
    uuid: '0190aaaa-0000-7000-8000-000000000000',
    event: 'e',
    distinctId,
    properties,
    time: 1,
    elementsChain: '',
    processPerson: true,
  });
  assert.equal(serializeLoggedEvents([event({ plan: 'a\u0000b' })]).propertiesSpans, undefined);
  assert.equal(serializeLoggedEvents([event({ '\ud800': 1 })]).propertiesSpans, undefined);
  assert.equal(serializeLoggedEvents([event({}, 'x\udfff')]).propertiesSpans, undefined);
  assert.notEqual(serializeLoggedEvents([event({ plan: 'é\ud83d\ude00' })]).propertiesSpans, undefined);
});
