import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { actorQuery } from '../support/actors.js';
import { addSecondOrganization } from '../support/accounts.js';
import { ERRORS, TallyServer, type ApiResponse } from '../support/tally.js';

/**
 * `GET|POST /insights/retention/`: PostHog's legacy retention tests (posthog/queries/test/
 * test_retention.py, ee/clickhouse/views/test/test_clickhouse_retention.py) restated with their
 * numbers, each dataset in a project of its own, captured through /batch. Every table is also
 * checked against its actors: a row's persons URL lists the row's members with their
 * appearances, and each data point's URL lists exactly its count of persons.
 */

/** PostHog's `_date(day, hour, month)`: 2020-06-(10 + day) at `hour`, `month` months later. */
function at(day: number, hour = 5, month = 0, minute = 0): string {
  return new Date(Date.UTC(2020, 5 + month, 10 + day, hour, minute)).toISOString().slice(0, 19);
}

type Sighting = [distinctId: string, time: string, properties?: Record<string, unknown>];

/** PostHog's `_create_events`: every other event of a call carries `$some_property: value`. */
function events(sightings: Sighting[], event = '$pageview') {
  return sightings.map(([distinctId, time, properties], index) => ({
    event,
    distinct_id: distinctId,
    timestamp: `${time}Z`,
    properties: { ...(index % 2 === 0 ? { $some_property: 'value' } : {}), ...properties },
  }));
}

/** A person known by a second distinct id (and properties), made before any dataset's window. */
function person(distinctId: string, alias: string | null, properties: Record<string, unknown> = {}) {
  return {
    event: alias ? '$create_alias' : '$set',
    distinct_id: distinctId,
    timestamp: '2019-01-01T00:00:00Z',
    properties: { ...(alias ? { alias } : {}), $set: properties },
  };
}

const DAY_SIGHTINGS: Sighting[] = [
  ['person1', at(0)],
  ['person1', at(1)],
  ['person1', at(2)],
  ['person1', at(5)],
  ['alias1', at(5, 9)],
  ['person1', at(6)],
  ['person2', at(1)],
  ['person2', at(2)],
  ['person2', at(3)],
  ['person2', at(6)],
];

const WEEK_SIGHTINGS: Sighting[] = [
  ['person1', at(0)],
  ['person2', at(0)],
  ['person1', at(1)],
  ['person2', at(1)],
  ['person1', at(7)],
  ['person2', at(7)],
  ['person1', at(14)],
  ['person1', at(-6, 5, 1)],
  ['person2', at(-6, 5, 1)],
  ['person2', at(1, 5, 1)],
  ['person1', at(1, 5, 1)],
  ['person2', at(15, 5, 1)],
];

/** Every dataset: its project's name and timezone, and its events in capture order. */
const DATASETS: Record<string, { timezone?: string; batches: Array<Array<Record<string, unknown>>> }> = {
  day: {
    batches: [[person('person1', 'alias1', { email: 'test@posthog.com' }), person('person2', null)], events(DAY_SIGHTINGS)],
  },
  inPeriod: {
    batches: [[person('person1', 'alias1'), person('person2', null)], events([...DAY_SIGHTINGS, ['person2', at(7)]])],
  },
  week: { batches: [[person('person1', 'alias1'), person('person2', null)], events(WEEK_SIGHTINGS)] },
  month: {
    batches: [
      [person('person1', 'alias1'), person('person2', null)],
      events([
        ['person1', at(0, 5, -5)],
        ['person2', at(0, 5, -5)],
        ['person1', at(0, 5, -4)],
        ['person2', at(0, 5, -4)],
        ['person1', at(0, 5, -3)],
        ['person2', at(0, 5, -3)],
        ['person1', at(0, 5, -1)],
        ['person1', at(0, 5, 0)],
        ['person2', at(0, 5, 0)],
        ['person2', at(0, 5, 1)],
        ['person1', at(0, 5, 3)],
        ['person2', at(0, 5, 5)],
      ]),
    ],
  },
  hour: {
    batches: [
      [person('person1', 'alias1'), person('person2', null)],
      events(
        (
          [
            ['person1', 6],
            ['person2', 6],
            ['person1', 7],
            ['person2', 7],
            ['person1', 8],
            ['person2', 8],
            ['person1', 10],
            ['person1', 11],
            ['person2', 11],
            ['person2', 12],
            ['person1', 14],
            ['person2', 16],
          ] as Array<[string, number]>
        ).map(([distinctId, hour]): Sighting => [distinctId, at(0, hour)]),
      ),
    ],
  },
  firstTime: {
    batches: [
      [person('person1', 'alias1'), person('person2', null), person('person3', null), person('person4', null), person('shouldnt_include', null)],
      events(
        [
          ['shouldnt_include', at(-5)],
          ['shouldnt_include', at(-1)],
          ['person1', at(-1)],
          ['person1', at(1)],
          ['person1', at(2)],
          ['person1', at(3)],
          ['person1', at(4)],
          ['person2', at(-1)],
        ],
        '$user_signed_up',
      ),
      events(DAY_SIGHTINGS),
      events([['person3', at(0)]], '$user_signed_up'),
      events([
        ['person3', at(1)],
        ['person3', at(3)],
        ['person3', at(4)],
        ['person3', at(5)],
      ]),
      events([['person4', at(2)]], '$user_signed_up'),
      events([
        ['person4', at(3)],
        ['person4', at(5)],
      ]),
    ],
  },
  multiple: {
    batches: [
      [person('person1', 'alias1'), person('person2', null), person('person3', null), person('person4', null)],
      events(
        [
          ['person1', at(0)],
          ['person1', at(1)],
          ['person1', at(2)],
          ['person1', at(3)],
          ['person2', at(0)],
          ['person2', at(1)],
          ['person2', at(2)],
          ['person2', at(3)],
          ['person3', at(5)],
        ],
        '$some_event',
      ),
      events([
        ['person1', at(5)],
        ['person1', at(6)],
        ['person2', at(5)],
      ]),
    ],
  },
  action: {
    batches: [
      [person('person1', 'alias1'), person('person2', null)],
      events(
        (['person1', 'person2'] as const).flatMap((distinctId) => [0, 1, 2, 3].map((day): Sighting => [distinctId, at(day)])),
        'sign up',
      ),
      events(
        [
          ['person1', at(3)],
          ['person2', at(5)],
        ],
        '$some_event',
      ),
    ],
  },
  utc: {
    batches: [
      [person('person1', 'alias1'), person('person2', null)],
      events([
        ['person1', at(-1, 1)],
        ['person1', at(0, 1)],
        ['person1', at(1, 1)],
        ['person2', at(6, 1)],
        ['person2', at(6, 9)],
      ]),
    ],
  },
  pacific: { timezone: 'US/Pacific', batches: [] },
  targetEvents: {
    batches: [
      [
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-01T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 2', timestamp: '2020-01-01T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-02T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 3', timestamp: '2020-01-02T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-03T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 3', timestamp: '2020-01-03T00:00:00Z' },
      ],
    ],
  },
  personBreakdown: {
    batches: [
      [
        { event: '$set', distinct_id: 'person 1', timestamp: '2019-12-01T00:00:00Z', properties: { $set: { os: 'Chrome' } } },
        { event: '$set', distinct_id: 'person 2', timestamp: '2019-12-01T00:00:00Z', properties: { $set: { os: 'Safari' } } },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-01T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-02T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 2', timestamp: '2020-01-02T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-03T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 2', timestamp: '2020-01-03T00:00:00Z' },
      ],
    ],
  },
  eventBreakdown: {
    batches: [
      [
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-01T00:00:00Z', properties: { os: 'Chrome' } },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-02T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 2', timestamp: '2020-01-02T00:00:00Z', properties: { os: 'Safari' } },
        { event: 'target event', distinct_id: 'person 1', timestamp: '2020-01-03T00:00:00Z' },
        { event: 'target event', distinct_id: 'person 2', timestamp: '2020-01-03T00:00:00Z' },
      ],
    ],
  },
  groups: {
    batches: [
      [
        {
          event: '$groupidentify',
          distinct_id: 'setup',
          timestamp: '2019-01-01T00:00:00Z',
          properties: { $group_type: 'organization', $group_key: 'org:1', $group_set: { industry: 'technology' } },
        },
        { event: '$groupidentify', distinct_id: 'setup', timestamp: '2019-01-01T00:00:00Z', properties: { $group_type: 'organization', $group_key: 'org:2' } },
      ],
      [
        ...events([
          ['p1', at(0), { $groups: { organization: 'org:1' } }],
          ['p1', at(1), { $groups: { organization: 'org:1' } }],
          ['p2', at(0), { $groups: { organization: 'org:1' } }],
          ['p3', at(1), { $groups: { organization: 'org:2' } }],
          ['p4', at(0)],
        ]),
      ],
    ],
  },
};
DATASETS.pacific!.batches = DATASETS.utc!.batches;

/**
 * 30 persons with seeded random signups and pageviews over 100 days from 2020-03-01, for tables
 * whose every data point is checked against its actors, and for the same cohorts counted in a
 * window of 11 periods and of 70.
 */
function randomSightings(): Array<Record<string, unknown>> {
  let seed = 20200301;
  const next = (below: number) => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return Math.floor((seed / 4294967296) * below);
  };
  const rows: Array<Record<string, unknown>> = [];
  for (let person = 0; person < 30; person++) {
    for (let sighting = next(25); sighting > 0; sighting--) {
      const time = new Date(Date.UTC(2020, 2, 1, next(24), next(60)) + next(100) * 86_400_000);
      rows.push({ event: next(4) === 0 ? 'signup' : '$pageview', distinct_id: `random${person}`, timestamp: time.toISOString() });
    }
  }
  return rows;
}
DATASETS.random = { batches: [randomSightings()] };

type Value = { count: number; people: unknown[]; people_url?: string };
type Row = { values: Value[]; label: string; date?: string; breakdown_values?: string[]; people_url: string };
type AppearanceRow = { person: { id: number; distinct_ids: string[]; created_at: string }; appearances: number[] };

function counts(rows: Row[]): number[][] {
  return rows.map((row) => row.values.map((value) => value.count));
}

describe('insights: retention', () => {
  let server: TallyServer;
  const projects: Record<string, number> = {};
  const keys: Record<string, string> = {};
  let otherProjectId: number;

  before(async () => {
    server = new TallyServer();
    const tokens: Record<string, string> = {};
    for (const [name, dataset] of Object.entries(DATASETS)) {
      const created = server.createProject(name, dataset.timezone);
      projects[name] = created.id;
      tokens[name] = created.api_token;
    }
    server.personalApiKey = server.createKey('*');
    keys.personOnly = server.createKey('person:read');
    keys.insightOnly = server.createKey('insight:read');
    keys.dayOnly = server.createKey('insight:read', [projects.day!]);
    ({ otherProjectId } = await addSecondOrganization(server, 'Elsewhere'));
    await server.start();
    for (const [name, dataset] of Object.entries(DATASETS)) {
      for (const batch of dataset.batches) {
        await server.bodyOf('POST', '/batch/', 200, { key: null, body: { api_key: tokens[name], batch } });
      }
    }
    // As PostHog's tests: test accounts are persons whose email contains posthog.com.
    await server.bodyOf('PATCH', `/api/projects/${projects.day}/`, 200, {
      body: { test_account_filters: [{ key: 'email', value: 'posthog.com', operator: 'not_icontains', type: 'person' }] },
    });
  });
  after(() => server.dispose());

  const url = (project: string) => `/api/projects/${projects[project]}/insights/retention/`;

  async function retention(project: string, params: Record<string, unknown>): Promise<Row[]> {
    const response = await server.get(`${url(project)}?${actorQuery(params)}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['is_cached', 'last_refresh', 'result', 'timezone']);
    await assertActorsMatch(response.body.result);
    return response.body.result;
  }

  async function actorRows(peopleUrl: string): Promise<AppearanceRow[]> {
    const response = await server.get(peopleUrl);
    assert.equal(response.status, 200, `${peopleUrl}: ${response.text}`);
    return response.body.result;
  }

  /**
   * PostHog's `get_by_cohort_by_period_for_response`, plus each data point's own URL: a row's
   * members appear at interval k exactly as many times as the table counts, and the data
   * point's URL lists those persons.
   */
  async function assertActorsMatch(rows: Row[]): Promise<void> {
    for (const row of rows) {
      const members = await actorRows(row.people_url);
      assert.equal(members.length, row.values[0]!.count, `${row.label}: members`);
      for (const [interval, value] of row.values.entries()) {
        const appearing = members.filter((member) => member.appearances[interval] === 1);
        assert.equal(appearing.length, value.count, `${row.label}, interval ${interval}: appearances`);
        assert.equal(value.people_url === undefined, value.count === 0, `${row.label}, interval ${interval}: URL`);
        if (value.people_url) {
          const listed = await actorRows(value.people_url);
          assert.deepEqual(
            listed.map((member) => member.person.id).sort(),
            appearing.map((member) => member.person.id).sort(),
            `${row.label}, interval ${interval}: data point actors`,
          );
        }
      }
    }
  }

  async function byCohortByPeriod(rows: Row[]): Promise<Record<string, Record<string, string[]>>> {
    const table: Record<string, Record<string, string[]>> = {};
    for (const row of rows) {
      const members = await actorRows(row.people_url);
      table[row.label] = Object.fromEntries(
        row.values.map((_, interval) => [
          String(interval + 1),
          members.filter((member) => member.appearances[interval] === 1).flatMap((member) => member.person.distinct_ids),
        ]),
      );
    }
    return table;
  }

  const DAY_LABELS = Array.from({ length: 11 }, (_, index) => `Day ${index}`);

  test('default: $pageview, Day, 11 intervals up to now; nothing in the last 11 days', async () => {
    const rows = await retention('day', {});
    assert.deepEqual(
      counts(rows),
      Array.from({ length: 11 }, (_, cohort) => new Array(11 - cohort).fill(0)),
    );
    assert.deepEqual(
      rows.map((row) => row.label),
      DAY_LABELS,
    );
  });

  test('day interval: date_to at 06:00 still counts the whole last day', async () => {
    const rows = await retention('day', { date_to: at(10, 6) });
    assert.deepEqual(
      rows.map((row) => row.label),
      DAY_LABELS,
    );
    assert.equal(rows[0]!.date, '2020-06-10T00:00:00Z');
    assert.equal(rows[10]!.date, '2020-06-20T00:00:00Z');
    assert.deepEqual(counts(rows), [
      [1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0],
      [2, 2, 1, 0, 1, 2, 0, 0, 0, 0],
      [2, 1, 0, 1, 2, 0, 0, 0, 0],
      [1, 0, 0, 1, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 0, 0],
      [2, 0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]);
    assert.deepEqual(rows[0]!.values[0], { count: 1, people: [], people_url: rows[0]!.values[0]!.people_url });
    assert.deepEqual(rows[0]!.values[3], { count: 0, people: [] });
    // PostHog's test_retention_people_basic: cohort 0 is person1 alone.
    const [member] = await actorRows(rows[0]!.people_url);
    assert.deepEqual(member!.person.distinct_ids.sort(), ['alias1', 'person1']);
  });

  test('global event and person properties filter target and returning events alike', async () => {
    const someProperty = await retention('day', { date_to: at(10, 0), properties: [{ key: '$some_property', value: 'value' }] });
    assert.deepEqual(counts(someProperty), [
      [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
      [1, 0, 1, 0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 1, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]);
    const email = await retention('day', {
      date_to: at(6, 0),
      total_intervals: 7,
      properties: [{ key: 'email', value: 'test@posthog.com', type: 'person' }],
    });
    const PERSON1 = [[1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1], [1, 0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0], [1, 1], [1]];
    assert.deepEqual(counts(email), PERSON1);
    assert.equal(email[0]!.date, '2020-06-10T00:00:00Z');
    const personAction = await server.bodyOf('POST', `/api/projects/${projects.day}/actions/`, 201, {
      body: { name: 'person1 pageview', steps: [{ event: '$pageview', properties: [{ key: 'email', value: 'test@posthog.com', type: 'person' }] }] },
    });
    const viaAction = await retention('day', {
      date_to: at(6, 0),
      total_intervals: 7,
      target_entity: { id: personAction.id, type: 'actions' },
      returning_entity: { id: '$pageview', type: 'events' },
    });
    assert.deepEqual(counts(viaAction), PERSON1);
  });

  test('filter_test_accounts leaves out the project test accounts', async () => {
    assert.deepEqual(counts(await retention('day', { date_to: at(10, 6), filter_test_accounts: true })), [
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
      [1, 1, 0, 0, 1, 0, 0, 0, 0],
      [1, 0, 0, 1, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]);
  });

  test('an action as the target, returning the same action (the first of actions)', async () => {
    const pageviews = await server.bodyOf('POST', `/api/projects/${projects.day}/actions/`, 201, {
      body: { name: 'sign up', steps: [{ event: '$pageview' }] },
    });
    const rows = await retention('day', {
      date_to: at(6, 0),
      total_intervals: 7,
      target_entity: { id: pageviews.id, type: 'actions' },
      actions: [{ id: pageviews.id, type: 'actions' }],
    });
    assert.deepEqual(counts(rows), [[1, 1, 1, 0, 0, 1, 1], [2, 2, 1, 0, 1, 2], [2, 1, 0, 1, 2], [1, 0, 0, 1], [0, 0, 0], [1, 1], [2]]);
  });

  test('the members of a cohort with their appearances, most appearances first', async () => {
    const [row] = await retention('inPeriod', { date_to: at(10, 6) }).then((rows) => rows.slice(2, 3));
    const members = await actorRows(row!.people_url);
    assert.deepEqual(
      members.map((member) => [member.person.distinct_ids.includes('person2') ? 'person2' : 'person1', member.appearances]),
      [
        ['person2', [1, 1, 0, 0, 1, 1, 0, 0, 0]],
        ['person1', [1, 0, 0, 1, 1, 0, 0, 0, 0]],
      ],
    );
  });

  test('month interval: cohorts keep the day of month of the window start', async () => {
    const rows = await retention('month', { date_to: at(0, 0, 5), period: 'Month' });
    assert.deepEqual(
      rows.map((row) => row.label),
      Array.from({ length: 11 }, (_, index) => `Month ${index}`),
    );
    assert.deepEqual(counts(rows), [
      [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
      [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
      [2, 0, 1, 2, 1, 0, 1, 0, 1],
      [0, 0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 1, 0, 0],
      [2, 1, 0, 1, 0, 1],
      [1, 0, 0, 0, 1],
      [0, 0, 0, 0],
      [1, 0, 0],
      [0, 0],
      [1],
    ]);
    assert.deepEqual(
      rows.map((row) => row.date),
      ['01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11'].map((month) => `2020-${month}-10T00:00:00Z`),
    );
  });

  test('week interval: weeks start on Sunday, or on Monday when the project says so', async () => {
    const WEEKS = [[2, 2, 1, 2, 2, 0, 1], [2, 1, 2, 2, 0, 1], [1, 1, 1, 0, 0], [2, 2, 0, 1], [2, 0, 1], [0, 0], [1]];
    for (const dateTo of [at(10, 0, 1), at(14, 0, 1)]) {
      const rows = await retention('week', { date_to: dateTo, period: 'Week', total_intervals: 7 });
      assert.deepEqual(
        rows.map((row) => row.label),
        Array.from({ length: 7 }, (_, index) => `Week ${index}`),
      );
      assert.deepEqual(counts(rows), WEEKS, dateTo);
      assert.deepEqual(
        rows.map((row) => row.date),
        ['06-07', '06-14', '06-21', '06-28', '07-05', '07-12', '07-19'].map((day) => `2020-${day}T00:00:00Z`),
      );
    }
    await server.bodyOf('PATCH', `/api/projects/${projects.week}/`, 200, { body: { week_start_day: 1 } });
    try {
      const monday = await retention('week', { date_to: at(10, 0, 1), period: 'Week', total_intervals: 7 });
      assert.deepEqual(counts(monday), WEEKS);
      assert.deepEqual(
        monday.map((row) => row.date),
        ['06-08', '06-15', '06-22', '06-29', '07-06', '07-13', '07-20'].map((day) => `2020-${day}T00:00:00Z`),
      );
    } finally {
      await server.bodyOf('PATCH', `/api/projects/${projects.week}/`, 200, { body: { week_start_day: 0 } });
    }
  });

  test('hour interval: date_to 16:13 ends the window at 17:00', async () => {
    const rows = await retention('hour', { date_to: at(0, 16, 0, 13), period: 'Hour' });
    assert.deepEqual(
      rows.map((row) => row.label),
      Array.from({ length: 11 }, (_, index) => `Hour ${index}`),
    );
    assert.deepEqual(counts(rows), [
      [2, 2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
      [2, 2, 0, 1, 2, 1, 0, 1, 0, 1],
      [2, 0, 1, 2, 1, 0, 1, 0, 1],
      [0, 0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 1, 0, 0],
      [2, 1, 0, 1, 0, 1],
      [1, 0, 0, 0, 1],
      [0, 0, 0, 0],
      [1, 0, 0],
      [0, 0],
      [1],
    ]);
    assert.deepEqual(
      rows.map((row) => row.date),
      Array.from({ length: 11 }, (_, hour) => `2020-06-10T${String(6 + hour).padStart(2, '0')}:00:00Z`),
    );
  });

  test('first time: only persons whose first-ever target event is in the window, in its cohort', async () => {
    const firstTime = {
      retention_type: 'retention_first_time',
      target_entity: JSON.stringify({ id: '$user_signed_up', type: 'events' }),
      returning_entity: { id: '$pageview', type: 'events' },
    };
    const rows = await retention('firstTime', { ...firstTime, date_to: at(5, 6), total_intervals: 7 });
    assert.deepEqual(counts(rows), [[2, 1, 2, 2, 1, 0, 1], [1, 1, 0, 1, 1, 1], [0, 0, 0, 0, 0], [1, 1, 0, 1], [0, 0, 0], [0, 0], [0]]);
    // PostHog's test_retention_people_first_time and test_retention_people_in_period_first_time.
    const tenDays = await retention('firstTime', { ...firstTime, date_to: at(10, 6) });
    const [person3] = await actorRows(tenDays[0]!.people_url);
    assert.deepEqual(person3!.person.distinct_ids, ['person3']);
    assert.deepEqual(person3!.appearances, [1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual(
      await actorRows(`/api/projects/${projects.firstTime}/persons/retention/?${actorQuery({ ...firstTime, date_to: at(14, 6), selected_interval: 0 })}`),
      [],
    );
  });

  test('random data: every data point of day, week and month tables, recurring and first time, is its actors', async () => {
    const signup = { target_entity: JSON.stringify({ id: 'signup', type: 'events' }), returning_entity: { id: '$pageview', type: 'events' } };
    for (const period of ['Day', 'Week', 'Month']) {
      for (const retention_type of ['retention_recurring', 'retention_first_time']) {
        // First signups fall early in the data: the first-time day table looks at its first days.
        const date_to =
          period === 'Month'
            ? '2020-06-03T10:00:00'
            : period === 'Day' && retention_type === 'retention_first_time'
              ? '2020-03-08T10:00:00'
              : '2020-05-20T10:00:00';
        const rows = await retention('random', { ...signup, period, retention_type, date_to, total_intervals: period === 'Month' ? 4 : 9 });
        assert.ok(
          rows.some((row) => row.values.slice(1).some((value) => value.count > 0)),
          `${period} ${retention_type}: some returns`,
        );
      }
    }
  });

  test('a cohort counts the same in a window of 11 periods and of 70', async () => {
    for (const period of ['Day', 'Week']) {
      const params = { period, date_to: '2020-06-05T10:00:00' };
      const short = counts(await retention('random', { ...params, total_intervals: 11 }));
      const long = counts((await server.bodyOf('GET', `${url('random')}?${actorQuery({ ...params, total_intervals: 70 })}`, 200)).result);
      // The legacy triangle: cohort c of n periods has n − c values, so the last 11 rows of 70 are the 11 rows.
      assert.deepEqual(long.slice(59), short);
      assert.ok(
        short.flat().some((count) => count > 0),
        `${period}: some counts`,
      );
    }
  });

  test('target and returning events differ; the target may be any event', async () => {
    const multiple = await retention('multiple', {
      date_to: at(6, 6),
      target_entity: JSON.stringify({ id: '$some_event', type: 'events' }),
      returning_entity: { id: '$pageview', type: 'events' },
      total_intervals: 7,
    });
    assert.deepEqual(counts(multiple), [[2, 0, 0, 0, 0, 2, 1], [2, 0, 0, 0, 2, 1], [2, 0, 0, 2, 1], [2, 0, 2, 1], [0, 0, 0], [1, 0], [0]]);
    const anyEvent = await retention('multiple', {
      date_to: at(6, 6),
      target_entity: JSON.stringify({ id: null, type: 'events' }),
      returning_entity: { id: null, type: 'events' },
      total_intervals: 7,
    });
    assert.deepEqual(counts(anyEvent), [[2, 2, 2, 2, 0, 2, 1], [2, 2, 2, 0, 2, 1], [2, 2, 0, 2, 1], [2, 0, 2, 1], [0, 0, 0], [3, 1], [1]]);
  });

  test('an action as the target with an event returning', async () => {
    const action = await server.bodyOf('POST', `/api/projects/${projects.action}/actions/`, 201, {
      body: { name: 'sign up', steps: [{ event: 'sign up' }] },
    });
    const rows = await retention('action', {
      date_to: at(6, 0),
      target_entity: JSON.stringify({ id: action.id, type: 'actions' }),
      returning_entity: { id: '$some_event', type: 'events' },
      total_intervals: 7,
    });
    assert.equal(rows[0]!.date, '2020-06-10T00:00:00Z');
    assert.deepEqual(counts(rows), [[2, 0, 0, 1, 0, 1, 0], [2, 0, 1, 0, 1, 0], [2, 1, 0, 1, 0], [2, 0, 1, 0], [0, 0, 0], [0, 0], [0]]);
  });

  test('periods follow the project timezone', async () => {
    const utc = await retention('utc', { date_to: at(10) });
    assert.deepEqual(counts(utc), [
      [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0],
      [1, 0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]);
    const pacific = await server.get(`${url('pacific')}?${actorQuery({ date_to: at(10) })}`);
    assert.equal(pacific.body.timezone, 'US/Pacific');
    await assertActorsMatch(pacific.body.result);
    assert.equal(pacific.body.result[0].date, '2020-06-10T00:00:00-07:00');
    assert.deepEqual(counts(pacific.body.result), [
      [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0],
      [1, 1, 0, 0, 0, 0],
      [1, 0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0],
      [0, 0],
      [0],
    ]);
  });

  test('cohorts by first time and by recurring target event, with their persons', async () => {
    const request = {
      target_entity: { id: 'target event', type: 'events' },
      returning_entity: { id: 'target event', type: 'events' },
      date_from: '2020-01-01',
      total_intervals: 2,
      date_to: '2020-01-02',
      period: 'Day',
    };
    assert.deepEqual(await byCohortByPeriod(await retention('targetEvents', { ...request, retention_type: 'retention_first_time' })), {
      'Day 0': { '1': ['person 1', 'person 2'], '2': ['person 1'] },
      'Day 1': { '1': ['person 3'] },
    });
    const recurring = await byCohortByPeriod(await retention('targetEvents', { ...request, retention_type: 'retention' }));
    assert.deepEqual(recurring['Day 0'], { '1': ['person 1', 'person 2'], '2': ['person 1'] });
    assert.deepEqual(recurring['Day 1']!['1']!.sort(), ['person 1', 'person 3']);
  });

  test('breakdowns by a person or an event property: a row per value over every interval', async () => {
    const request = {
      target_entity: { id: 'target event', type: 'events' },
      returning_entity: { id: 'target event', type: 'events' },
      date_from: '2020-01-01',
      total_intervals: 2,
      date_to: '2020-01-02',
      period: 'Day',
      retention_type: 'retention_first_time',
    };
    const expected = { Chrome: { '1': ['person 1'], '2': ['person 1'] }, Safari: { '1': ['person 2'], '2': ['person 2'] } };
    const byPerson = await retention('personBreakdown', { ...request, breakdowns: [{ type: 'person', property: 'os' }], breakdown_type: 'person' });
    assert.deepEqual(await byCohortByPeriod(byPerson), expected);
    assert.deepEqual(
      byPerson.map((row) => [row.label, row.breakdown_values, row.date]),
      [
        ['Chrome', ['Chrome'], undefined],
        ['Safari', ['Safari'], undefined],
      ],
    );
    const byEvent = await retention('eventBreakdown', { ...request, breakdowns: [{ type: 'event', property: 'os' }], breakdown_type: 'event' });
    assert.deepEqual(await byCohortByPeriod(byEvent), expected);
    // The same through `breakdown` and `breakdown_type`.
    assert.deepEqual(counts(await retention('eventBreakdown', { ...request, breakdown: 'os', breakdown_type: 'event' })), counts(byEvent));
    const chrome = byEvent.find((row) => row.label === 'Chrome')!;
    assert.deepEqual(
      (await actorRows(chrome.values[0]!.people_url!)).flatMap((member) => member.person.distinct_ids),
      ['person 1'],
    );
  });

  test('aggregated by groups: a group is retained when any of its persons comes back; its actors are groups', async () => {
    const window = { date_to: at(2), total_intervals: 3 };
    assert.deepEqual(counts(await retention('groups', window)), [[3, 1, 0], [2, 0], [0]]);
    const byOrganization = await retention('groups', { ...window, aggregation_group_type_index: 0 });
    assert.deepEqual(counts(byOrganization), [[1, 1, 0], [2, 0], [0]]);
    const members = await actorRows(byOrganization[1]!.people_url);
    assert.deepEqual(
      members.map((member) => [member.person, member.appearances]),
      ['org:1', 'org:2'].map((key) => [
        {
          type: 'group',
          id: key,
          group_key: key,
          group_type_index: 0,
          created_at: members.find((member) => (member.person as unknown as { id: string }).id === key)!.person.created_at,
          properties: key === 'org:1' ? { industry: 'technology' } : {},
          matched_recordings: [],
          value_at_data_point: null,
        },
        [1, 0],
      ]),
    );
  });

  test('POST takes the filter as a JSON body; paths with and without the slash and under /api/environments/', async () => {
    const params = { date_to: at(10, 6), total_intervals: 6 };
    const viaGet = await server.bodyOf('GET', `${url('day')}?${actorQuery(params)}`);
    for (const [method, path, body] of [
      ['POST', url('day'), params],
      ['GET', `${url('day').slice(0, -1)}?${actorQuery(params)}`, undefined],
      ['POST', `/api/environments/${projects.day}/insights/retention`, params],
    ] as const) {
      const answer = await server.bodyOf(method, path, 200, { body });
      assert.deepEqual(answer.result, viaGet.result, `${method} ${path}`);
    }
    assert.deepEqual(counts(viaGet.result), [[1, 1, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]);
  });

  test('scope insight:read; keys of other projects and other organizations are refused', async () => {
    const path = `${url('day')}?date_to=${at(10, 6)}`;
    assert.equal((await server.get(path, { key: keys.insightOnly })).status, 200);
    assert.deepEqual((await server.get(path, { key: keys.personOnly })).body, ERRORS.missingScope('insight:read'));
    assert.equal((await server.get(`${url('week')}`, { key: keys.dayOnly })).status, 403);
    assert.equal((await server.get(`/api/projects/${otherProjectId}/insights/retention/`)).status, 403);
    assert.deepEqual((await server.get('/api/projects/999999/insights/retention/')).body, ERRORS.notFound);
  });

  test("another project's action or cohort is a 400 naming the field", async () => {
    const action = await server.bodyOf('POST', `/api/projects/${projects.month}/actions/`, 201, {
      body: { name: 'elsewhere', steps: [{ event: '$pageview' }] },
    });
    const cohort = await server.bodyOf('POST', `/api/projects/${projects.month}/cohorts/`, 201, {
      body: { name: 'elsewhere', filters: { properties: { type: 'AND', values: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }] } } },
    });
    for (const [params, attr] of [
      [{ target_entity: { id: action.id, type: 'actions' } }, 'target_entity'],
      [{ returning_entity: { id: action.id, type: 'actions' } }, 'returning_entity'],
      [{ properties: [{ key: 'id', value: cohort.id, type: 'cohort' }] }, 'properties'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await server.get(`${url('day')}?${actorQuery(params)}`);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  test('bad input is a 400 naming the field, never a 500', async () => {
    for (const [params, attr] of [
      [{ period: 'Year' }, 'period'],
      [{ total_intervals: 'many' }, 'total_intervals'],
      [{ total_intervals: 0 }, 'total_intervals'],
      [{ total_intervals: 5000 }, 'total_intervals'],
      [{ date_to: 'tomorrow-ish' }, 'date_to'],
      [{ retention_type: 'sometimes' }, 'retention_type'],
      [{ target_entity: '{"id":' }, 'target_entity'],
      [{ target_entity: { id: 1, type: 'groups' } }, 'target_entity'],
      [{ returning_entity: { id: 'x', type: 'actions' } }, 'returning_entity'],
      [{ target_entity: { id: 999999, type: 'actions' } }, 'target_entity'],
      [{ properties: '[{' }, 'properties'],
      [{ breakdowns: '{"property": "os"}' }, 'breakdowns'],
      [{ breakdowns: [{ type: 'cohort', property: 'os' }] }, 'breakdowns'],
      [{ breakdowns: [{ type: 'group', property: 'industry' }] }, 'breakdowns'],
      [{ breakdown: 'os', breakdown_type: 'hogql' }, 'breakdown_type'],
      [{ aggregation_group_type_index: 7 }, 'aggregation_group_type_index'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await server.get(`${url('day')}?${actorQuery(params)}`);
      assert.equal(response.status, 400, `${JSON.stringify(params)} ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
    const malformed = await server.request('POST', url('day'), { rawBody: '{"period":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
  });

  test('a saved insight of retention filters computes the numbers of the endpoint', async () => {
    const filters = { insight: 'RETENTION', date_to: at(10, 6), period: 'Day', total_intervals: 5, target_entity: { id: '$pageview', type: 'events' } };
    const created = await server.bodyOf('POST', `/api/projects/${projects.day}/insights/`, 201, { body: { name: 'Retention', filters } });
    const computed = await server.bodyOf('GET', `/api/projects/${projects.day}/insights/${created.id}/?refresh=true`);
    const direct: ApiResponse = await server.get(`${url('day')}?${actorQuery(filters)}`);
    assert.deepEqual(computed.result, direct.body.result);
    assert.deepEqual(counts(computed.result), [[2, 0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0], [0, 0], [0]]);
  });
});
