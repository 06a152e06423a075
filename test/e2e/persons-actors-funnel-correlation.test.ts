import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, peopleIds, sortedPeopleIds } from '../support/actors.js';
import { sendBatch } from '../support/capture.js';
import { PERSONS, startWithKeys, validationError } from '../support/persons.js';
import { ERRORS, type TallyServer } from '../support/tally.js';

/**
 * `GET|POST /persons/funnel/correlation` over the funnel `signed up` → `paid` (14-day window,
 * May 2021, UTC):
 *
 *   c1 (plan pro)   signed up 01 10:00, liked 01 11:00, paid 02 10:00           converted, liked inside
 *   c2 (plan pro)   signed up 01 10:00, paid 02 10:00, liked 03 10:00           converted, liked after completing
 *   c3 (plan free)  signed up 01 10:00, left 01 12:00                          not converted, left inside
 *   c4              signed up 01 10:00, left 20 10:00 (after the window)       not converted
 *   c5              liked 01 11:00 (never entered)
 *   c6 (plan pro)   signed up 01 10:00, liked 01 11:00 {source: ad}, paid 05    converted, liked inside
 */
const CORRELATION = `${PERSONS}/funnel/correlation/`;
const FUNNEL = {
  events: [
    { id: 'signed up', order: 0 },
    { id: 'paid', order: 1 },
  ],
  date_from: '2021-05-01',
  date_to: '2021-05-31',
};
const LIKED = { id: 'liked', type: 'events' };

describe('persons analysis: funnel correlation actors', () => {
  let server: TallyServer;
  let keys: Record<string, string>;

  before(async () => {
    ({ server, keys } = await startWithKeys({ insightOnly: 'insight:read' }));
    const at = (event: string, distinctId: string, when: string, properties: Record<string, unknown> = {}) => ({
      event,
      distinct_id: distinctId,
      timestamp: `2021-05-${when}:00Z`,
      properties,
    });
    await sendBatch(server, [
      at('signed up', 'c1', '01T10:00', { $set: { plan: 'pro' } }),
      at('liked', 'c1', '01T11:00'),
      at('paid', 'c1', '02T10:00'),
      at('signed up', 'c2', '01T10:00', { $set: { plan: 'pro' } }),
      at('paid', 'c2', '02T10:00'),
      at('liked', 'c2', '03T10:00'),
      at('signed up', 'c3', '01T10:00', { $set: { plan: 'free' } }),
      at('left', 'c3', '01T12:00'),
      at('signed up', 'c4', '01T10:00'),
      at('left', 'c4', '20T10:00'),
      at('liked', 'c5', '01T11:00'),
      at('signed up', 'c6', '01T10:00', { $set: { plan: 'pro' } }),
      at('liked', 'c6', '01T11:00', { source: 'ad' }),
      at('paid', 'c6', '05T10:00'),
    ]);
  });
  after(() => server.dispose());

  const get = (params: Record<string, unknown>, key?: string) => server.get(`${CORRELATION}?${actorQuery({ ...FUNNEL, ...params })}`, { key });

  test('events: funnel persons who did the event between entering and completing, by conversion', async () => {
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{ funnel_correlation_person_entity: LIKED }, ['c1', 'c6']],
      [{ funnel_correlation_person_entity: LIKED, funnel_correlation_person_converted: 'TRUE' }, ['c1', 'c6']],
      [{ funnel_correlation_person_entity: LIKED, funnel_correlation_person_converted: 'false' }, []],
      [{ funnel_correlation_person_entity: { id: 'left', type: 'events' }, funnel_correlation_person_converted: 'false' }, ['c3']],
      [{ funnel_correlation_person_entity: { id: 'left', type: 'events' }, funnel_window_days: 30 }, ['c3', 'c4']],
      [
        {
          funnel_correlation_type: 'event_with_properties',
          funnel_correlation_person_entity: { ...LIKED, properties: [{ key: 'source', value: 'ad', type: 'event' }] },
        },
        ['c6'],
      ],
    ];
    for (const [params, people] of expected) {
      const response = await get(params);
      assert.deepEqual(sortedPeopleIds(response), people, JSON.stringify(params));
      assert.equal(response.body.missing_persons, 0);
    }
    // Newest person first; c1 and c6 appeared together, so the later-made person comes first.
    assert.deepEqual(peopleIds(await get({ funnel_correlation_person_entity: LIKED })), ['c6', 'c1']);
  });

  test('properties: funnel persons with the property values, by conversion', async () => {
    const pro = [{ key: 'plan', value: 'pro', type: 'person', operator: 'exact' }];
    const expected: Array<[Record<string, unknown>, string[]]> = [
      [{ funnel_correlation_type: 'properties', funnel_correlation_property_values: pro }, ['c1', 'c2', 'c6']],
      [{ funnel_correlation_type: 'properties', funnel_correlation_property_values: pro, funnel_correlation_person_converted: 'false' }, []],
      [
        {
          funnel_correlation_type: 'properties',
          funnel_correlation_property_values: [{ key: 'plan', value: 'free', type: 'person' }],
          funnel_correlation_person_converted: 'false',
        },
        ['c3'],
      ],
    ];
    for (const [params, people] of expected) assert.deepEqual(sortedPeopleIds(await get(params)), people, JSON.stringify(params));
  });

  test('POST body; paging with the correlation limit and offset, carried by next', async () => {
    assert.deepEqual(sortedPeopleIds(await server.post(CORRELATION, { ...FUNNEL, funnel_correlation_person_entity: LIKED })), ['c1', 'c6']);
    const first = await get({ funnel_correlation_person_entity: LIKED, funnel_correlation_person_limit: 1 });
    assert.equal(first.body.results[0].count, 1);
    const next = new URL(first.body.next);
    assert.equal(next.searchParams.get('funnel_correlation_person_offset'), '1');
    assert.equal(next.searchParams.get('funnel_correlation_person_limit'), '1');
    const second = await server.get(next.pathname + next.search);
    assert.deepEqual([...sortedPeopleIds(first), ...sortedPeopleIds(second)].sort(), ['c1', 'c6']);
    assert.equal(second.body.next, null, 'no next page when the last page is exactly full');

    // A POST's next link carries the body's parameters, so following it with a GET gives the next page.
    const posted = await server.post(CORRELATION, { ...FUNNEL, funnel_correlation_person_entity: LIKED, funnel_correlation_person_limit: 1 });
    const followed = new URL(posted.body.next);
    assert.equal(followed.searchParams.get('funnel_correlation_person_offset'), '1');
    const rest = await server.get(followed.pathname + followed.search);
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual([...sortedPeopleIds(posted), ...sortedPeopleIds(rest)].sort(), ['c1', 'c6']);
  });

  test('bad input is a 400 naming the field; the scope is person:read', async () => {
    const missingEntity = await get({});
    assert.deepEqual(missingEntity.body, validationError('No entity for persons specified', 'funnel_correlation_person_entity', 'required'));
    const missingValues = await get({ funnel_correlation_type: 'properties' });
    assert.deepEqual(
      missingValues.body,
      validationError('Property Correlation expects atleast one Property to get persons for', 'funnel_correlation_property_values', 'required'),
    );
    const unparsable = await get({ funnel_correlation_type: 'properties', funnel_correlation_property_values: '[{' });
    assert.deepEqual(unparsable.body, validationError('Properties are unparsable!', 'funnel_correlation_property_values'));
    for (const [params, attr] of [
      [{ funnel_correlation_person_entity: '{"id":' }, 'funnel_correlation_person_entity'],
      [{ funnel_correlation_person_entity: { id: 'x', type: 'groups' } }, 'funnel_correlation_person_entity'],
      [{ funnel_correlation_person_entity: LIKED, funnel_correlation_person_converted: 'maybe' }, 'funnel_correlation_person_converted'],
      [{ funnel_correlation_person_entity: LIKED, funnel_correlation_type: 'vibes' }, 'funnel_correlation_type'],
      [{ funnel_correlation_person_entity: LIKED, funnel_correlation_person_limit: 'x' }, 'funnel_correlation_person_limit'],
      [{ funnel_correlation_person_entity: LIKED, events: [] }, 'events'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await get(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    assert.deepEqual((await get({ funnel_correlation_person_entity: LIKED }, keys.insightOnly)).body, ERRORS.missingScope('person:read'));
  });
});
