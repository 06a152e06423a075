import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { v5 as uuidv5 } from 'uuid';
import { PERSON_UUID_NAMESPACE, personUuidFor, personUuidFromName } from '../../src/persons/person.js';

test("a person's UUID is the uuid package's UUIDv5 of the name in PostHog's persons namespace", () => {
  assert.equal(personUuidFor(1, 'user-1'), uuidv5('1:user-1', PERSON_UUID_NAMESPACE));
  assert.match(personUuidFromName('1:user-1'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (name) => assert.equal(personUuidFromName(name), uuidv5(name, PERSON_UUID_NAMESPACE))));
});
