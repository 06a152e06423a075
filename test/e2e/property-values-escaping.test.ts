import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery, sortedPeopleIds } from '../support/actors.js';
import { createCohort, definedBy, memberIds } from '../support/cohorts.js';
import { PERSONS, jsonParam, personOf } from '../support/persons.js';
import { TallyServer } from '../support/tally.js';

/**
 * Property values that JSON escapes (`"`, `\`, control characters; non-ASCII sent as `\u`
 * escapes) compare, filter, break down and list as their decoded text everywhere; values that
 * are not strings compare as their JSON text, as PostHog's legacy filters do. Project 1 holds
 * one `view` per person on 1 January 2020, `v` on the event and `pv` on the person alike:
 *
 *   d1 'a"b'   d2 'a\b'   d3 'café 😀'   d4 'line1⏎line2'   d5 80   d6 '80'
 *   d7 {"a":1}   d8 null   d9 true   d10 (no property)
 */
const VALUES: Array<[string, unknown]> = [
  ['d1', 'a"b'],
  ['d2', 'a\\b'],
  ['d3', 'café 😀'],
  ['d4', 'line1\nline2'],
  ['d5', 80],
  ['d6', '80'],
  ['d7', { a: 1 }],
  ['d8', null],
  ['d9', true],
];
const RANGE = { date_from: '2020-01-01', date_to: '2020-01-01' };
const VIEWS = { events: [{ id: 'view', order: 0 }], ...RANGE };
const TREND = '/api/projects/1/insights/trend/';

/** The batch's JSON with every non-ASCII character as a `\u` escape, as some clients send it. */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

describe('property values with escaped characters', () => {
  let server: TallyServer;

  before(async () => {
    server = new TallyServer(undefined, { TALLY_PROJECT_TOKEN: 'phc_escaping' });
    await server.start();
    const batch = [
      ...VALUES.map(([distinctId, value]) => ({
        event: 'view',
        distinct_id: distinctId,
        timestamp: '2020-01-01T10:00:00Z',
        properties: { v: value, $set: { pv: value } },
      })),
      { event: 'view', distinct_id: 'd10', timestamp: '2020-01-01T10:00:00Z', properties: {} },
    ];
    const body = asciiJson({ api_key: 'phc_escaping', batch });
    assert.match(body, /caf\\u00e9 \\ud83d\\ude00/);
    const response = await server.request('POST', '/batch/', { key: null, rawBody: body, headers: { 'content-type': 'application/json' } });
    assert.equal(response.status, 200, response.text);
  });
  after(() => server.dispose());

  /** The trend's count over the day with these global property filters. */
  async function count(properties: unknown[]): Promise<number> {
    const response = await server.post(TREND, { ...VIEWS, properties });
    assert.equal(response.status, 200, response.text);
    return response.body.result[0].count;
  }

  async function listed(properties: unknown[]): Promise<string[]> {
    const response = await server.get(`${PERSONS}/?properties=${jsonParam(properties)}`);
    assert.equal(response.status, 200, response.text);
    return response.body.results.map((person: any) => person.distinct_ids[0]).sort();
  }

  test('event property filters compare the decoded text', async () => {
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ value: 'a"b' }, 1],
      [{ value: 'a\\b' }, 1],
      [{ value: 'café 😀' }, 1],
      [{ value: 'line1\nline2' }, 1],
      [{ value: ['a"b', 'a\\b', 'nothing'] }, 2],
      [{ value: 80 }, 2],
      [{ value: '80' }, 2],
      [{ value: true }, 1],
      [{ value: '{"a":1}' }, 1],
      [{ value: null }, 1],
      [{ value: 'a"b', operator: 'is_not' }, 9],
      [{ value: ['a"b', 'a\\b'], operator: 'is_not' }, 8],
      [{ value: '"', operator: 'icontains' }, 2],
      [{ value: '\\', operator: 'icontains' }, 1],
      [{ value: 'CAFÉ', operator: 'icontains' }, 1],
      [{ value: '\n', operator: 'icontains' }, 1],
      [{ value: '\\', operator: 'not_icontains' }, 9],
      [{ value: '^a"b$', operator: 'regex' }, 1],
      [{ value: '^a\\\\b$', operator: 'regex' }, 1],
      [{ value: '^line1\\nline2$', operator: 'regex' }, 1],
      [{ value: '😀$', operator: 'regex' }, 1],
      [{ value: '"', operator: 'not_regex' }, 8],
    ];
    for (const [filter, expected] of cases) {
      assert.equal(await count([{ key: 'v', type: 'event', operator: 'exact', ...filter }]), expected, JSON.stringify(filter));
    }
  });

  test('person property filters: trend, persons list (also from the materialized column) and cohorts', async () => {
    assert.equal(await count([{ key: 'pv', type: 'person', value: 'a"b' }]), 1);
    assert.equal(await count([{ key: 'pv', type: 'person', value: '\\', operator: 'icontains' }]), 1);
    for (let read = 0; read < 2; read++) {
      assert.deepEqual(await listed([{ key: 'pv', type: 'person', value: 'a"b' }]), ['d1']);
      assert.deepEqual(await listed([{ key: 'pv', type: 'person', value: ['a\\b', 'line1\nline2'] }]), ['d2', 'd4']);
      assert.deepEqual(await listed([{ key: 'pv', type: 'person', value: 'É 😀', operator: 'icontains' }]), ['d3']);
      assert.deepEqual(await listed([{ key: 'pv', type: 'person', value: '80' }]), ['d5', 'd6']);
      assert.deepEqual(await listed([{ key: 'pv', type: 'person', value: '^a\\\\b$', operator: 'regex' }]), ['d2']);
    }
    const quoted = await createCohort(server, { name: 'quoted', ...definedBy({ key: 'pv', type: 'person', value: 'a"b', operator: 'exact' }) });
    const backslashed = await createCohort(server, {
      name: 'backslashed',
      ...definedBy({ key: 'pv', type: 'person', value: '\\', operator: 'icontains' }),
    });
    assert.deepEqual(await memberIds(server, quoted.id), ['d1']);
    assert.deepEqual(await memberIds(server, backslashed.id), ['d2']);
    assert.equal(await count([{ key: 'id', type: 'cohort', value: quoted.id }]), 1);
    assert.deepEqual(await listed([{ key: 'id', type: 'cohort', value: backslashed.id }]), ['d2']);
  });

  test('persons values show and search the decoded text', async () => {
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=pv`)).body, [
      { name: '80', count: 2 },
      { name: 'a"b', count: 1 },
      { name: 'a\\b', count: 1 },
      { name: 'café 😀', count: 1 },
      { name: 'line1\nline2', count: 1 },
      { name: 'true', count: 1 },
      { name: '{"a":1}', count: 1 },
    ]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=pv&value=${encodeURIComponent('"B')}`)).body, [{ name: 'a"b', count: 1 }]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=pv&value=${encodeURIComponent('\\')}`)).body, [{ name: 'a\\b', count: 1 }]);
    assert.deepEqual((await server.get(`${PERSONS}/values/?key=pv&value=${encodeURIComponent('\n')}`)).body, [{ name: 'line1\nline2', count: 1 }]);
  });

  test('breakdowns label the decoded text, and their persons urls find the persons', async () => {
    for (const breakdown of [{ breakdown: 'v' }, { breakdown: 'pv', breakdown_type: 'person' }]) {
      const response = await server.post(TREND, { ...VIEWS, ...breakdown });
      assert.equal(response.status, 200, response.text);
      const items = response.body.result as any[];
      assert.deepEqual(
        items.map((item) => [item.breakdown_value, item.label, item.count]),
        [
          ['80', '80', 2],
          ['$$_posthog_breakdown_null_$$', 'None (i.e. no value)', 1],
          ['a"b', 'a"b', 1],
          ['a\\b', 'a\\b', 1],
          ['café 😀', 'café 😀', 1],
          ['line1\nline2', 'line1\nline2', 1],
          ['null', 'null', 1],
          ['true', 'true', 1],
          ['{"a":1}', '{"a":1}', 1],
        ],
        JSON.stringify(breakdown),
      );
      for (const [value, people] of [
        ['a"b', ['d1']],
        ['a\\b', ['d2']],
        ['café 😀', ['d3']],
        ['line1\nline2', ['d4']],
      ] as const) {
        const item = items.find((candidate) => candidate.breakdown_value === value);
        assert.deepEqual(sortedPeopleIds(await server.get(`/${item.persons_urls[0].url}`)), people, value);
      }
    }
  });

  test('trend and funnel actors pick a breakdown value by its decoded text', async () => {
    const trendActors = (value: string) =>
      server.get(`${PERSONS}/trends/?${actorQuery({ ...VIEWS, entity_id: 'view', entity_type: 'events', breakdown: 'v', breakdown_value: value })}`);
    assert.deepEqual(sortedPeopleIds(await trendActors('a"b')), ['d1']);
    assert.deepEqual(sortedPeopleIds(await trendActors('a\\b')), ['d2']);
    const funnel = (value: string) =>
      server.get(
        `${PERSONS}/funnel/?${actorQuery({
          events: [
            { id: 'view', type: 'events', order: 0 },
            { id: 'view', type: 'events', order: 1 },
          ],
          ...RANGE,
          breakdown: 'v',
          breakdown_type: 'event',
          funnel_step: 1,
          funnel_step_breakdown: [value],
        })}`,
      );
    assert.deepEqual(sortedPeopleIds(await funnel('a"b')), ['d1']);
    assert.deepEqual(sortedPeopleIds(await funnel('line1\nline2')), ['d4']);
  });

  test('the properties timeline shows the decoded person properties', async () => {
    const person = await personOf(server, 'd1');
    assert.equal(person.properties.pv, 'a"b');
    const timeline = await server.get(
      `${PERSONS}/${person.id}/properties_timeline/?${actorQuery({ ...RANGE, properties: [{ key: 'pv', value: 'a"b', type: 'person' }] })}`,
    );
    assert.equal(timeline.status, 200, timeline.text);
    assert.deepEqual(
      timeline.body.points.map((point: any) => [point.properties.pv, point.relevant_event_count]),
      [['a"b', 1]],
    );
  });
});
